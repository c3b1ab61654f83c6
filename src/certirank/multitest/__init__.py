"""certirank.multitest"""
