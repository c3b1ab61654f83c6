"""certirank.sim"""
