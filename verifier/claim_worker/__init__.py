"""Seed 001, the claim verification worker (``POST /worker/verify``; not the Celery
worker): pure ranking, adaptive trust, verdict, verdict-package, cache-gate and
web-expansion modules (no Django imports). The ``verifier.services.claim_worker_*``
modules feed them database candidates and the Layer-2 judge's stances
(``claim_worker_verify.worker_verify`` runs the steps in order).
"""
