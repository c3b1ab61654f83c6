"""certirank.baselines"""
