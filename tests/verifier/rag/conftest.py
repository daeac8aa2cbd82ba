from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.judges import build_judge

CASES_PATH = Path(__file__).with_name("cases.json")


def load_cases() -> list[dict]:
    return json.loads(CASES_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def judge():
    """The offline default judge (heuristic + the real MiniLM embeddings)."""
    return build_judge({"backend": "heuristic"})
