"""Seed 004 relation verification: SR-MKG topological scoring, VoG for borderline
relations, the chunk prefilter and per-workspace calibration (pure, no Django imports)."""
