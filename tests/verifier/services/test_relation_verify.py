import io
import json
from dataclasses import dataclass

import pytest
from django.core.management import CommandError, call_command

from tests.factories import make_binding, make_claim, make_source
from tests.verifier.relations.scripted_judge import ScriptedJudge
from verifier.engine import get_judge
from verifier.models import (
    ClaimRelation,
    RelationDecision,
    RelationVerificationConfig,
    SrmkgCalibration,
)
from verifier.relations.srmkg import sigmoid
from verifier.selectors.relation_verification import relation_stats_get, relations_for_review
from verifier.selectors.retrieval import relations_among, relations_touching
from verifier.services.relation_verify import (
    chunks_verify,
    relations_verify,
    relations_verify_pending,
    srmkg_calibrate,
)

TEXT = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows. Salt marsh grasses trap silt at high tide."
)
QUOTES = [
    "The Marrow River delta gains land in wet years",
    "Sediment settles where the current slows",
    "Salt marsh grasses trap silt at high tide",
]


@pytest.fixture
def claims(workspace):
    src = make_source(workspace, text=TEXT)
    out = [make_claim(src, text=q + ".") for q in QUOTES]
    out.append(make_claim(src, text="The delta floods."))
    return out


def rel(workspace, a, b, kind="supports", confidence=0.6):
    return ClaimRelation.objects.create(
        workspace=workspace, from_claim=a, to_claim=b, kind=kind, confidence=confidence
    )


def triangle(workspace, claims, confidence=0.6):
    a, b, c = claims[:3]
    return [
        rel(workspace, a, b, confidence=confidence),
        rel(workspace, b, c, "elaborates", confidence),
        rel(workspace, a, c, confidence=confidence),
    ]


def bind_all(claims):
    for claim, quote in zip(claims[:3], QUOTES, strict=True):
        make_binding(claim, quote)


def test_isolated_relation_is_rejected_logged_and_queued_for_review(workspace, claims):
    r = rel(workspace, claims[0], claims[3])
    report = relations_verify_pending(workspace=workspace, judge=ScriptedJudge())
    assert report.as_dict() == {
        "checked": 1,
        "accepted": 0,
        "rejected": 1,
        "vog_calls": 0,
        "capped": 0,
    }
    r.refresh_from_db()
    assert (r.verification, r.verification_level, r.needs_review) == (
        "rejected",
        "srmkg_reject",
        True,
    )
    d = RelationDecision.objects.get(relation=r)
    assert (d.base, d.jaccard, d.type_boost, d.isolated) == (0.6, 0.0, 1.0, 1.0)
    assert d.score == pytest.approx(0.4 * 0.6 + 0.05 - 0.3)
    assert (d.label, d.source) == ("reject", "srmkg")
    assert list(relations_for_review(workspace=workspace)) == [r]
    assert relations_touching(workspace=workspace, claim_pks=[claims[0].pk]) == []
    pks = [claims[0].pk, claims[3].pk]
    assert relations_among(workspace=workspace, claim_pks=pks) == []


def test_high_confidence_triangle_is_accepted_without_vog_and_feeds_the_graph(workspace, claims):
    for c in claims:
        c.published = True
        c.save(update_fields=["published"])
    rels = triangle(workspace, claims, confidence=0.8)  # 0.32 + 0.4 + 0.05 = 0.77
    judge = ScriptedJudge()
    relations_verify(workspace=workspace, relations=rels, judge=judge)
    assert judge.asked == []
    assert set(ClaimRelation.objects.values_list("verification", flat=True)) == {"accepted"}
    assert len(relations_touching(workspace=workspace, claim_pks=[claims[0].pk])) == 2
    assert not relations_for_review(workspace=workspace).exists()


def test_borderline_without_bound_spans_is_rejected_without_asking(workspace, claims):
    rels = triangle(workspace, claims)  # 0.24 + 0.4 + 0.05 = 0.69 → VoG
    judge = ScriptedJudge({str(r.pk): ("entailed", 0.9) for r in rels})
    relations_verify(workspace=workspace, relations=rels, judge=judge)
    assert judge.asked == []
    assert set(RelationDecision.objects.values_list("level", flat=True)) == {"vog_no_evidence"}


def test_borderline_vog_verdicts_and_per_workspace_cap(workspace, claims):
    bind_all(claims)
    RelationVerificationConfig.objects.create(workspace=workspace, values={"vog_max_candidates": 1})
    rels = triangle(workspace, claims)
    judge = ScriptedJudge({str(r.pk): ("contradicted", 0.9) for r in rels})
    report = relations_verify(workspace=workspace, relations=rels, judge=judge)
    # the FROM claim's span is the evidence; the TO claim's span is what it must support
    assert len(judge.asked) == 1 and judge.asked[0].spans == (QUOTES[0],)
    assert judge.asked[0].claim == QUOTES[1]
    assert report.capped == 2 and report.vog_calls == 1
    levels = dict(RelationDecision.objects.values_list("relation_id", "level"))
    assert levels == {rels[0].pk: "vog_rejected", rels[1].pk: "srmkg_cap", rels[2].pk: "srmkg_cap"}
    capped = ClaimRelation.objects.get(pk=rels[1].pk)
    assert capped.verification == "accepted" and capped.needs_review
    assert capped.verification_score == pytest.approx(0.69)
    assert relations_for_review(workspace=workspace).count() == 3
    stats = relation_stats_get(workspace=workspace)
    assert stats["hallucinations_blocked"] == 1
    assert stats["relations_rejected_by_vog"] == 1
    assert stats["avg_vog_score"] == 0.0
    assert stats["capped"] == 2
    assert stats["by_level"] == {"vog_rejected": 1, "srmkg_cap": 2}


def test_zero_configured_weight_is_honoured(workspace, claims):
    RelationVerificationConfig.objects.create(
        workspace=workspace, values={"srmkg_penalty_isolated": 0, "srmkg_w_type_boost": 0}
    )
    r = rel(workspace, claims[0], claims[3], confidence=0.9)
    relations_verify(workspace=workspace, relations=[r], judge=None)
    assert RelationDecision.objects.get().score == pytest.approx(0.36)


def test_vog_with_the_default_heuristic_judge(workspace, claims):
    bind_all(claims)
    rels = triangle(workspace, claims)
    judge = get_judge()
    relations_verify(workspace=workspace, relations=rels, judge=judge)
    rows = list(RelationDecision.objects.all())
    assert len(rows) == 3
    assert all(r.source == "vog" and r.judge_model == judge.model_id for r in rows)
    assert all(r.level.startswith("vog_") and r.level != "vog_no_evidence" for r in rows)
    # three unrelated sentences of one paragraph: none supports another (a statement
    # that quoted both texts made the lexical judge ground every pair)
    assert not any(r.level == "vog_grounded" for r in rows)


def test_heuristic_judge_grounds_a_real_contradiction(workspace):
    text = "The lighthouse was built in 1871. The lighthouse was not built in 1871."
    src = make_source(workspace, text=text)
    a = make_claim(src, text="The lighthouse was built in 1871.")
    b = make_claim(src, text="The lighthouse was not built in 1871.")
    make_binding(a, "The lighthouse was built in 1871")
    settings = {"srmkg_threshold_reject": -1.0, "srmkg_threshold_accept": 1.0}  # all to VoG
    RelationVerificationConfig.objects.create(workspace=workspace, values=settings)
    r = rel(workspace, a, b, "contradicts")
    relations_verify(workspace=workspace, relations=[r], judge=get_judge())
    assert RelationDecision.objects.get(relation=r).level == "vog_grounded"


def _log_separable(workspace, n=80):
    RelationDecision.objects.bulk_create(
        [
            RelationDecision(
                workspace=workspace,
                relation_type="supports",
                base=0.6,
                jaccard=(0.6 + 0.004 * i) if i % 2 else (0.004 * i),
                type_boost=1.0,
                isolated=0.0,
                score=0.5,
                level="vog_grounded",
                source="vog",
                label="accept" if i % 2 else "reject",
            )
            for i in range(n)
        ]
    )


def test_calibration_is_stored_used_and_reverted(workspace, claims):
    _log_separable(workspace)
    out = srmkg_calibrate(workspace=workspace, epochs=2000, lr=1.0)
    assert out["stored"] and out["version"] == 1 and out["n_train"] == 64
    assert out["auc"] == pytest.approx(1.0)
    cal = SrmkgCalibration.objects.get(workspace=workspace)
    r = rel(workspace, claims[0], claims[3], confidence=0.9)
    relations_verify(workspace=workspace, relations=[r], judge=None)
    d = RelationDecision.objects.get(relation=r)
    z = cal.bias + sum(cal.weights[k] * getattr(d, k) for k in cal.weights)
    assert d.score == pytest.approx(sigmoid(z)) and d.calibration_version == 1
    cal.delete()
    r2 = rel(workspace, claims[1], claims[3], confidence=0.9)
    relations_verify(workspace=workspace, relations=[r2], judge=None)
    d2 = RelationDecision.objects.get(relation=r2)
    assert d2.score == pytest.approx(0.36 + 0.05 - 0.3) and d2.calibration_version is None


def test_calibrate_command_dry_run_and_refusals(workspace):
    _log_separable(workspace, n=49)
    with pytest.raises(CommandError, match="at least 50"):
        call_command("calibrate_srmkg", "--workspace", workspace.slug)
    out = io.StringIO()
    call_command(
        "calibrate_srmkg",
        "--workspace",
        workspace.slug,
        "--min-samples",
        "40",
        "--dry-run",
        stdout=out,
    )
    result = json.loads(out.getvalue())
    assert result["stored"] is False and result["n_train"] == 39 and "auc" in result
    assert not SrmkgCalibration.objects.exists()
    RelationDecision.objects.update(label="accept")
    with pytest.raises(CommandError, match="one class"):
        call_command("calibrate_srmkg", "--workspace", workspace.slug, "--min-samples", "10")
    with pytest.raises(CommandError, match="no workspace"):
        call_command("calibrate_srmkg", "--workspace", "nope")


@dataclass
class Chunk:
    text: str
    similarity: float


def test_chunk_events_and_stats_command(workspace):
    judge = ScriptedJudge({"1": ("entailed", 0.8)})
    result = chunks_verify(
        workspace=workspace,
        chunks=[Chunk("a", 0.1), Chunk("b", 0.5), Chunk("c", 0.9)],
        query="q",
        judge=judge,
    )
    assert [c.text for c in result["verified"]] == ["b", "c"]
    out = io.StringIO()
    call_command(
        "relation_stats", "--workspace", workspace.slug, "--raw", "--days", "7", stdout=out
    )
    stats = json.loads(out.getvalue())
    assert stats["rejected_vector_prefilter"] == 1
    assert stats["chunks_rejected_by_vog"] == 0
    assert stats["avg_vog_score"] == 0.8
    assert len(stats["chunk_events"]) == 1
    assert stats["decision_rows"] == [] and stats["decisions"] == 0
    with pytest.raises(CommandError):
        call_command("relation_stats", "--days", "0")


def test_vog_gets_both_spans(workspace):
    # Seed 004: VoG "asks an LLM whether source_text and target_text actually support
    # the proposed relation": source_text is the FROM claim's span, target_text the TO
    # claim's; the judge reads the first and is asked whether it supports the second.
    src = make_source(workspace, text=TEXT)
    a = make_claim(src, text="The delta grows in wet years.")
    b = make_claim(src, text="Silt drops out of slow water.")
    make_binding(a, QUOTES[0])
    make_binding(b, QUOTES[1])
    RelationVerificationConfig.objects.create(
        workspace=workspace,
        values={"srmkg_threshold_reject": -1.0},  # to VoG
    )
    r = rel(workspace, a, b)
    judge = ScriptedJudge({str(r.pk): ("entailed", 0.9)})
    relations_verify(workspace=workspace, relations=[r], judge=judge)
    (item,) = judge.asked
    assert item.spans == (QUOTES[0],)
    assert item.claim == QUOTES[1]


def test_vog_cap_counts_calls_not_relations_without_evidence(workspace, claims):
    # "caps VoG calls per cycle (vog_max_candidates)": with the cap at 2, a borderline
    # relation whose FROM claim has no span (vog_no_evidence, no call) leaves both
    # places to relations that are asked.
    make_binding(claims[0], QUOTES[0])
    make_binding(claims[1], QUOTES[1])
    RelationVerificationConfig.objects.create(
        workspace=workspace,
        values={"vog_max_candidates": 2, "srmkg_threshold_reject": -1.0},
    )
    rels = [
        rel(workspace, claims[3], claims[0]),  # no span on the FROM claim
        rel(workspace, claims[0], claims[1]),
        rel(workspace, claims[1], claims[0]),
        rel(workspace, claims[0], claims[2]),
    ]
    judge = ScriptedJudge({str(r.pk): ("entailed", 0.9) for r in rels})
    report = relations_verify(workspace=workspace, relations=rels, judge=judge)
    assert [i.key for i in judge.asked] == [str(rels[1].pk), str(rels[2].pk)]
    assert report.vog_calls == 2 and report.capped == 1
    levels = dict(RelationDecision.objects.values_list("relation_id", "level"))
    assert levels == {
        rels[0].pk: "vog_no_evidence",
        rels[1].pk: "vog_grounded",
        rels[2].pk: "vog_grounded",
        rels[3].pk: "srmkg_cap",
    }


def test_rejected_by_vog_is_the_seeds_chunk_sum(workspace, claims):
    # Seed 004: "Rejected by VoG | SUM(chunks_rejected_vog)". A relation VoG rejects is
    # counted beside it under its own name, not in the seed's figure.
    bind_all(claims)
    RelationVerificationConfig.objects.create(
        workspace=workspace, values={"srmkg_threshold_reject": -1.0}
    )
    r = rel(workspace, claims[0], claims[1])
    relations_verify(
        workspace=workspace, relations=[r], judge=ScriptedJudge({str(r.pk): ("contradicted", 0.9)})
    )
    stats = relation_stats_get(workspace=workspace)
    assert stats["relations_rejected_by_vog"] == 1
    assert stats["rejected_by_vog"] == 0
    chunks_verify(
        workspace=workspace,
        chunks=[Chunk("a", 0.5)],
        query="q",
        judge=ScriptedJudge({"0": ("contradicted", 0.9)}),
    )
    stats = relation_stats_get(workspace=workspace)
    assert stats["rejected_by_vog"] == 1
    assert stats["rejected_by_vog_chunks_and_relations"] == 2


def test_a_cycle_writes_only_relations_still_as_it_read_them(workspace, claims):
    """Two cycles over the same pending relations (two ingest jobs ending together) each
    read them, ask the judge outside any transaction, then write: the later one finds
    them decided and writes nothing, so no decision is logged twice for calibration."""
    bind_all(claims)
    triangle(workspace, claims)
    read_before = list(
        ClaimRelation.objects.filter(workspace=workspace, verification="pending")
        .select_related("from_claim", "to_claim")
        .order_by("pk")
    )
    first = relations_verify_pending(workspace=workspace, judge=ScriptedJudge())
    assert first.checked == 3
    logged = RelationDecision.objects.filter(workspace=workspace).count()
    decided = list(ClaimRelation.objects.filter(workspace=workspace).values_list("verification"))

    late = relations_verify(workspace=workspace, relations=read_before, judge=ScriptedJudge())

    assert late.checked == 0
    assert RelationDecision.objects.filter(workspace=workspace).count() == logged
    now = list(ClaimRelation.objects.filter(workspace=workspace).values_list("verification"))
    assert now == decided
