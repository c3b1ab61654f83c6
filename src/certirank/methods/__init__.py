"""certirank.methods"""
