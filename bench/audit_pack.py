"""Audit-pack benchmark: export a signed pack of 10,000 claims over 200 sources, then check
it with the standalone checker (the check.py inside the pack, run as its own process).

    .venv/bin/python bench/audit_pack.py                 # 10,000 claims, 200 sources, 3 runs
    .venv/bin/python bench/audit_pack.py --claims 50000 --sources 500 --runs 1
    .venv/bin/python bench/audit_pack.py --fresh         # rebuild the bench workspace

Runs on its own database (``spanproof_bench_audit_pack`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first; the data set is reused between runs.
Each source is 40 sentences of the training prose (``../shared/train/prose.jsonl``);
each claim quotes one of them at its exact offsets, with a history as the pipeline
writes it: a model verdict (entailed, contradicted, abstained, a coverage gap), a
reviewer's decision on some, exclusions, and state events whose end state is what the
five-state rules give (the checker recomputes it). Export: ``manage.py audit_pack``'s
service into a file (median of ``--runs``). Check: ``python -I -S check.py PACK`` in a
folder with nothing else, wall time including the interpreter's start. Prints one JSON
object; targets: export <= 10 s, check <= 5 s. The load average is printed before and
after, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json
from bench.workspace_fill import prose_sentences

BENCH_DB = "spanproof_bench_audit_pack"
WORKSPACE_SLUG = "bench-audit-pack"
SENTENCES_PER_SOURCE = 40
SEED = 20261127
EXPORT_TARGET_S = 10.0
CHECK_TARGET_S = 5.0
# (model verdict label, confidence, share of claims); the rest have no bound span.
MIX = [
    ("entailed", 0.91, 0.55),
    ("contradicted", 0.84, 0.10),
    ("abstained", 0.0, 0.15),
    ("coverage_gap", 0.0, 0.05),
    ("entailed", 0.35, 0.05),
]
HUMAN_SHARE = 0.05
EXCLUDED_SHARE = 0.03


def _seed(n_claims: int, n_sources: int) -> dict:
    """The bench workspace with ``n_claims`` claims over ``n_sources`` sources; reused
    when it already holds that many."""
    from django.db import transaction

    from verifier.models import (
        HUMAN_JUDGE_FAMILY,
        Claim,
        ClaimOrigin,
        EvidenceBinding,
        Membership,
        StateEvent,
        Verdict,
        Workspace,
    )
    from verifier.services.sources import source_upsert
    from verifier.services.workspaces import workspace_create
    from verifier.states import StateInputs, VerdictInput, resolve_state

    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    if workspace is not None:
        if (
            Claim.objects.filter(workspace=workspace).count() == n_claims
            and workspace.sources.count() == n_sources
        ):
            return {"seeded": False, "seed_seconds": 0.0}
        workspace.delete()
    started = time.perf_counter()
    rng = random.Random(SEED)
    sentences = prose_sentences(n_sources * SENTENCES_PER_SOURCE)
    from django.contrib.auth import get_user_model

    with transaction.atomic():
        workspace = workspace_create(slug=WORKSPACE_SLUG, name="Audit-pack bench")
        users = get_user_model().objects
        reviewer = users.filter(username="bench-reviewer").first() or users.create_user(
            username="bench-reviewer", password="bench-reviewer-pw"
        )
        Membership.objects.get_or_create(workspace=workspace, user=reviewer, role="reviewer")
        sources = []
        for s in range(n_sources):
            chunk = sentences[s * SENTENCES_PER_SOURCE : (s + 1) * SENTENCES_PER_SOURCE]
            text = " ".join(chunk)
            source = source_upsert(
                workspace=workspace, ref=f"source:bench_{s:04d}", text=text, title=f"Bench {s}"
            ).source
            version = source.versions.get()
            sources.append((source, version, chunk))
        claims = []
        plans = []
        for i in range(n_claims):
            source, version, chunk = sources[i % n_sources]
            quote = chunk[rng.randrange(len(chunk))]
            roll, acc, verdict = rng.random(), 0.0, None
            for label, confidence, share in MIX:
                acc += share
                if roll < acc:
                    verdict = (label, confidence)
                    break
            bound = verdict is not None
            human = bound and rng.random() < HUMAN_SHARE
            excluded = rng.random() < EXCLUDED_SHARE
            claims.append(
                Claim(
                    workspace=workspace,
                    source=source,
                    text=quote,
                    original_text=quote,
                    origin=ClaimOrigin.IMPORTED,
                    submitted_quote=quote if bound else "",
                    exclusion_reason="bench exclusion" if excluded else "",
                    published=True,
                )
            )
            plans.append((version, quote, verdict, human, excluded))
        Claim.objects.bulk_create(claims, batch_size=2000)
        bindings, verdicts, events, states = [], [], [], []
        for claim, (version, quote, verdict, human, excluded) in zip(claims, plans, strict=True):
            binding = None
            if verdict is not None:
                start = version.text.index(quote)
                binding = EvidenceBinding(
                    claim=claim,
                    source_version=version,
                    quote=quote,
                    start=start,
                    end=start + len(quote),
                    source_hash=version.sha256,
                    match="exact",
                    bound_by="quote",
                )
                bindings.append(binding)
            states.append((claim, binding, verdict, human, excluded))
        EvidenceBinding.objects.bulk_create(bindings, batch_size=2000)
        for claim, binding, verdict, human, excluded in states:
            state, reason = "unverified", "not_judged"
            steps = []
            model = human_input = None
            if verdict is not None:
                label, confidence = verdict
                verdicts.append(
                    Verdict(
                        claim=claim,
                        binding=binding,
                        judge_model="spanproof-nli-v1",
                        judge_family="cross-encoder",
                        label=label,
                        confidence=confidence,
                    )
                )
                model = VerdictInput(label=label, confidence=confidence)
                steps.append(("verified", None, model, None, False))
                if human:
                    verdicts.append(
                        Verdict(
                            claim=claim,
                            binding=binding,
                            judge_model=f"human:{reviewer.username}",
                            judge_family=HUMAN_JUDGE_FAMILY,
                            label="entailed",
                            confidence=1.0,
                            reviewer=reviewer,
                        )
                    )
                    human_input = VerdictInput(label="entailed", confidence=1.0)
                    steps.append(
                        ("review: supported by bench-reviewer", reviewer, model, human_input, False)
                    )
            else:
                steps.append(("verified", None, None, None, False))
            if excluded:
                steps.append(("excluded: bench exclusion", reviewer, model, human_input, True))
            for cause, actor, m, h, ex in steps:
                decision = resolve_state(
                    StateInputs(
                        binding="fresh" if binding is not None else "none",
                        match="exact" if binding is not None else None,
                        model_verdict=m,
                        human_verdict=h,
                        excluded=ex,
                        legacy_affirmed=False,
                    )
                )
                if (decision.state.value, decision.reason.value) == (state, reason):
                    continue
                events.append(
                    StateEvent(
                        claim=claim,
                        from_state=state,
                        to_state=decision.state.value,
                        reason=decision.reason.value,
                        cause=cause,
                        actor=actor,
                    )
                )
                state, reason = decision.state.value, decision.reason.value
            claim.state, claim.state_reason = state, reason
        Verdict.objects.bulk_create(verdicts, batch_size=2000)
        StateEvent.objects.bulk_create(events, batch_size=2000)
        Claim.objects.bulk_update(claims, ["state", "state_reason"], batch_size=2000)
    return {"seeded": True, "seed_seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    args = parser.parse_args()

    # A DATABASE_URL marks production, which needs a secret key: a bench-only one.
    django_setup(BENCH_DB, fresh=args.fresh)
    from django.core.management import call_command

    from verifier.audit_pack.scope import PackScope
    from verifier.models import Workspace
    from verifier.services.audit_pack import audit_pack_write, signing_key_ensure

    load_before = os.getloadavg()
    call_command("migrate", verbosity=0, interactive=False)
    data = _seed(args.claims, args.sources)
    workspace = Workspace.objects.get(slug=WORKSPACE_SLUG)
    signing_key_ensure(workspace=workspace)
    work = Path(tempfile.mkdtemp(prefix="audit-pack-bench-"))
    exports, checks = [], []
    try:
        pack = work / "pack.zip"
        for _ in range(args.runs):
            started = time.perf_counter()
            with pack.open("wb") as sink:
                result = audit_pack_write(
                    workspace=workspace,
                    scope=PackScope(kind="claims"),
                    sink=sink,
                    exported_by={"agent": "bench/audit_pack.py"},
                )
            exports.append(time.perf_counter() - started)
        alone = work / "alone"
        alone.mkdir()
        with zipfile.ZipFile(pack) as archive:
            (alone / "check.py").write_bytes(archive.read("check.py"))
            members = len(archive.namelist())
            uncompressed = sum(i.file_size for i in archive.infolist())
        shutil.copy(pack, alone / "pack.zip")
        for _ in range(args.runs):
            started = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-I", "-S", "check.py", "pack.zip"],
                cwd=alone,
                capture_output=True,
                text=True,
                check=False,
            )
            checks.append(time.perf_counter() - started)
            if run.returncode != 0:
                raise SystemExit(f"the checker failed:\n{run.stdout}{run.stderr}")
        report_tail = run.stdout.strip().splitlines()
        size = pack.stat().st_size
    finally:
        shutil.rmtree(work, ignore_errors=True)
    export_s = statistics.median(exports)
    check_s = statistics.median(checks)
    data.update(
        {
            "claims": result.claims,
            "sources": args.sources,
            "runs": args.runs,
            "export_s": round(export_s, 2),
            "export_runs_s": [round(t, 2) for t in exports],
            "check_s": round(check_s, 2),
            "check_runs_s": [round(t, 2) for t in checks],
            "pack_bytes": size,
            "pack_uncompressed_bytes": uncompressed,
            "pack_files": members,
            "export_target_s": EXPORT_TARGET_S,
            "check_target_s": CHECK_TARGET_S,
            "export_ok": export_s <= EXPORT_TARGET_S,
            "check_ok": check_s <= CHECK_TARGET_S,
            "checker_report": report_tail,
            "cpus": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }
    )
    print_json(data)


if __name__ == "__main__":
    main()
