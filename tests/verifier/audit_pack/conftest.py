from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from review.services import review_decide
from tests.factories import make_source, make_user
from tests.review.conftest import seen
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier.audit_pack import check
from verifier.audit_pack.scope import PackScope
from verifier.services.audit_pack import audit_pack_write
from verifier.services.claim_state import claim_exclude

SUPPORTED_QUOTE = "Sediment settles where the current slows."


def write_pack(workspace, path: Path, scope: PackScope | None = None) -> Path:
    with path.open("wb") as sink:
        audit_pack_write(
            workspace=workspace,
            scope=scope or PackScope(kind="claims"),
            sink=sink,
            exported_by={"role": "auditor"},
        )
    return path


def unzip(pack: Path, folder: Path) -> Path:
    with zipfile.ZipFile(pack) as archive:
        archive.extractall(folder)
    return folder


def jsonl(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text("utf-8").splitlines()]


def write_jsonl(folder: Path, name: str, rows: list[dict]) -> None:
    (folder / name).write_text("".join(check.dumps_line(r) + "\n" for r in rows), "utf-8")


@pytest.fixture
def history(workspace):
    """A small workspace with every kind of history through the real services: a
    supported claim, a contradicted one, one with nothing bound, one a reviewer (whose
    username must not appear in a pack) decided, and an excluded one."""
    source = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    reviewer = make_user("rita.reviewer", workspace=workspace, role="reviewer")
    claims = {
        "supported": judged_claim(source, SUPPORTED_QUOTE, quote=SUPPORTED_QUOTE),
        "contradicted": judged_claim(
            source,
            "Salt marsh grasses never trap silt.",
            quote="Salt marsh grasses trap silt at high tide.",
            label="contradicted",
            confidence=0.91,
        ),
        "abstained": judged_claim(
            source, "The delta floods every spring.", label="abstained", confidence=0.0
        ),
        "reviewed": judged_claim(
            source,
            "Storm surges strip growth.",
            quote="Storm surges can strip a season of growth in a single night.",
            label="abstained",
            confidence=0.2,
        ),
        "excluded": judged_claim(
            source,
            "Dredging starves the marsh.",
            quote="Dredging the main channel starves the outer marsh of mud.",
        ),
    }
    review_decide(
        claim=claims["reviewed"],
        reviewer=reviewer,
        expected_version=seen(claims["reviewed"]),
        decision="supported",
        note="checked",
    )
    claim_exclude(claim=claims["excluded"], reason="duplicate of another claim", actor=reviewer)
    for claim in claims.values():
        claim.refresh_from_db()
    return {"source": source, "reviewer": reviewer, "claims": claims}
