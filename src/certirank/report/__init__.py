"""certirank.report"""
