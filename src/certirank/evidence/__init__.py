"""certirank.evidence"""
