"""Seed 001, the claim verification worker: pure ranking, adaptive trust and verdict
modules (no Django imports). ``verifier.services.worker_verify`` feeds them database
candidates and the Layer-2 judge's stances; ``POST /worker/verify`` serves the result.
"""
