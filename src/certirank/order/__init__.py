"""certirank.order"""
