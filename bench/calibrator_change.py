"""Reviewer calibrator activation at workspace scale: how long the admin waits, how long
reviewers can be kept waiting on locks, how fast the claims come in line.

    .venv/bin/python bench/calibrator_change.py                  # 2,000 judged claims
    .venv/bin/python bench/calibrator_change.py --claims 10000

Runs on its own database (``spanproof_bench_calibrator`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), rebuilt each run: one workspace whose claims are bound
to their own sentences and judged by the heuristic judge — half restate their span in
other words (the judge abstains; reviewers say supported), half share only a subject with
it (the judge abstains; reviewers say contradicted) — 200 of them decided by a reviewer,
and a calibrator fitted on those decisions. Then, timed: the activation page's flip list
(``calibrator_activation_preview``, at most ``PREVIEW_MAX_CLAIMS``), the activation
itself (what the confirming request does), and the background change
(``calibrator_change_job_run``): claims read per second and the longest chunk, which is
the longest a reviewer can wait on a claim's lock. Nothing is sent to a broker: the bench
runs the job itself. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

if TYPE_CHECKING:
    from verifier.judges import Judge
    from verifier.models import Workspace

BENCH_DB = "spanproof_bench_calibrator"
DECIDED = 200
NAMES = ("Alder", "Birch", "Cedar", "Elm", "Hazel", "Larch", "Maple", "Rowan")


Decision = Literal["supported", "contradicted"]


def pair(i: int) -> tuple[str, str, Decision]:
    """(span, claim, what reviewers say) for claim ``i``: a restatement or an unrelated
    claim about the same subject."""
    name = f"{NAMES[i % len(NAMES)]} {i}"
    if i % 2 == 0:
        return (
            f"The {name} Street bridge was rebuilt after the flood and reopened within a year.",
            f"After the flood, the {name} Street bridge was back in service in under twelve "
            "months.",
            "supported",
        )
    return (
        f"The {name} museum opens at nine on weekdays.",
        f"The {name} museum was founded by a retired sea captain.",
        "contradicted",
    )


def build(claims: int) -> tuple[Workspace, Any, Judge]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from review.selectors.item import review_item_change
    from review.services import review_decide
    from verifier.engine import get_judge
    from verifier.models import Claim, ClaimOrigin, EvidenceBinding, Workspace
    from verifier.services.judging import claims_judge
    from verifier.services.sources import source_upsert
    from verifier.services.workspaces import membership_set

    call_command("migrate", verbosity=0)
    workspace = Workspace.objects.create(slug="bench-calibrator", name="Calibrator bench")
    users = get_user_model().objects
    reviewer = users.create_user("bench-reviewer", password="bench-only-password-1")
    admin = users.create_user("bench-admin", password="bench-only-password-1")
    membership_set(workspace=workspace, user=reviewer, role="reviewer")
    membership_set(workspace=workspace, user=admin, role="admin")
    pairs = [pair(i) for i in range(claims)]
    made = []
    for start in range(0, claims, 500):  # one source per 500 claims
        chunk = pairs[start : start + 500]
        text = " ".join(span for span, _, _ in chunk)
        source = source_upsert(
            workspace=workspace, ref=f"source:bench_{start}", text=text, title="Bench"
        ).source
        version = source.versions.order_by("-number").first()
        assert version is not None
        for span, claim_text, say in chunk:
            claim = Claim.objects.create(
                workspace=workspace,
                source=source,
                text=claim_text,
                original_text=claim_text,
                origin=ClaimOrigin.EXTRACTED,
            )
            at = version.text.index(span)
            EvidenceBinding.objects.create(
                claim=claim,
                source_version=version,
                quote=span,
                start=at,
                end=at + len(span),
                source_hash=version.sha256,
                match="exact",
                bound_by="quote",
            )
            made.append((claim, say))
    judge = get_judge()
    claims_judge(claims=[c for c, _ in made], judge=judge)
    for claim, say in made[:DECIDED]:
        seen = review_item_change(claim=claim).version
        review_decide(claim=claim, reviewer=reviewer, expected_version=seen, decision=say)
    return workspace, admin, judge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=2000)
    args = parser.parse_args()
    django_setup(BENCH_DB, fresh=True)

    from verifier.models import JudgeCalibrator
    from verifier.selectors import calibrators as calibrator_selectors
    from verifier.services import calibrator_change_jobs as change_jobs
    from verifier.services.judge_calibrators import judge_calibrator_activate, judge_calibrator_fit

    started = time.perf_counter()
    workspace, admin, judge = build(args.claims)
    built = time.perf_counter() - started
    row = judge_calibrator_fit(workspace=workspace, judge=judge).row
    assert isinstance(row, JudgeCalibrator)

    t = time.perf_counter()
    preview = calibrator_selectors.calibrator_activation_preview(
        workspace=workspace, row=row, judge=judge
    )
    preview_s = time.perf_counter() - t
    assert preview.plan is not None, preview.refusal

    # The bench runs the job itself (below): nothing goes to a broker.
    setattr(change_jobs, "task_enqueue_on_commit", lambda *args, **kwargs: None)  # noqa: B010
    t = time.perf_counter()
    job = judge_calibrator_activate(calibrator=row, actor=admin, judge=judge)
    activate_s = time.perf_counter() - t

    chunk_seconds: list[float] = []
    real_apply = change_jobs.calibrator_chunk_apply

    def timed_apply(**kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real_apply(**kwargs)
        finally:
            chunk_seconds.append(time.perf_counter() - t0)

    setattr(change_jobs, "calibrator_chunk_apply", timed_apply)  # noqa: B010
    t = time.perf_counter()
    job = change_jobs.calibrator_change_job_run(job_id=job.pk, judge=judge)
    run_s = time.perf_counter() - t
    print_json(
        {
            "claims": args.claims,
            "in_scope": job.total,
            "build_s": round(built, 1),
            "calibrator": {
                "decisions": row.training_size,
                "cv_supported_precision": row.cv_supported_precision,
                "cv_contradicted_precision": row.cv_contradicted_precision,
            },
            "preview": {
                "seconds": round(preview_s, 2),
                "claims_read": preview.read,
                "flips": len(preview.plan.flips),
            },
            "activate_request_s": round(activate_s, 3),
            "change": {
                "status": job.status,
                "seconds": round(run_s, 1),
                "claims_per_s": round(job.done / run_s, 1) if run_s else None,
                "chunks": len(chunk_seconds),
                "chunk_size": change_jobs.CHUNK,
                "longest_chunk_s": round(max(chunk_seconds), 2) if chunk_seconds else None,
                "appended": job.appended,
                "moved": job.moved,
            },
        }
    )


if __name__ == "__main__":
    main()
