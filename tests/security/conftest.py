from __future__ import annotations

from tests.verifier.pipeline.conftest import run_job

__all__ = ["run_job"]
