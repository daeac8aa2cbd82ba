from tests.verifier.relations.scripted_judge import ScriptedJudge
from verifier.relations import vog
from verifier.relations.cycle import RelationCandidate, verify_relations
from verifier.relations.srmkg import VerificationSettings

# a, b share 1 of 3 neighbours; c and d are well connected; z is isolated
NEIGHBOURS = {
    "a": {"x", "y"},
    "b": {"x", "w"},
    "c": set("pqrstuv"),
    "d": set("pqrstuv"),
}


def cand(key, f, t, conf=0.5, source="s", target="t", rtype="treats", target_is_claim=False):
    return RelationCandidate(
        key,
        f,
        t,
        rtype,
        conf,
        source_text=source,
        target_text=target,
        target_is_claim=target_is_claim,
    )


def test_accept_reject_and_vog_levels():
    judge = ScriptedJudge({"mid": ("entailed", 0.9)})
    decisions = verify_relations(
        [cand("hi", "c", "d", conf=1.0), cand("lo", "a", "z", conf=0.2), cand("mid", "a", "b")],
        NEIGHBOURS,
        VerificationSettings(),
        judge,
    )
    by = {d.key: d for d in decisions}
    assert by["hi"].level == "srmkg_accept" and by["hi"].accepted and not by["hi"].needs_review
    assert by["lo"].level == "srmkg_reject" and not by["lo"].accepted and by["lo"].needs_review
    assert by["mid"].level == vog.LEVEL_GROUNDED and by["mid"].accepted
    assert by["mid"].source == "vog" and by["mid"].vog_score == 0.9
    assert [i.key for i in judge.asked] == ["mid"]
    assert by["hi"].components.as_dict() == {
        "base": 1.0,
        "jaccard": 1.0,
        "type_boost": 1.0,
        "isolated": 0.0,
    }


def test_vog_cap_accepts_the_rest_at_srmkg_score_and_flags_them():
    answers = {f"k{i}": ("contradicted", 0.9) for i in range(5)}
    judge = ScriptedJudge(answers)
    settings = VerificationSettings.from_mapping({"vog_max_candidates": 2})
    decisions = verify_relations(
        [cand(f"k{i}", "a", "b") for i in range(5)], NEIGHBOURS, settings, judge
    )
    assert len(judge.asked) == 2
    levels = [d.level for d in decisions]
    assert levels == ["vog_rejected", "vog_rejected", "srmkg_cap", "srmkg_cap", "srmkg_cap"]
    capped = decisions[2]
    assert capped.accepted and capped.needs_review and capped.vog_score is None
    assert capped.score == decisions[0].score
    assert decisions[0].hallucination_blocked and not capped.hallucination_blocked


def test_default_cap_is_thirty():
    judge = ScriptedJudge({f"k{i}": ("entailed", 0.9) for i in range(40)})
    decisions = verify_relations(
        [cand(f"k{i}", "a", "b") for i in range(40)], NEIGHBOURS, VerificationSettings(), judge
    )
    assert len(judge.asked) == 30
    assert sum(d.level == "srmkg_cap" for d in decisions) == 10


def test_borderline_without_evidence_is_rejected_without_judge_call():
    judge = ScriptedJudge({"m": ("entailed", 0.9)})
    (d,) = verify_relations(
        [cand("m", "a", "b", source="", target="")], NEIGHBOURS, VerificationSettings(), judge
    )
    assert d.level == "vog_no_evidence" and not d.accepted and judge.asked == []


def test_vog_cap_counts_only_relations_that_make_a_call():
    # Seed 004: "The pipeline caps VoG calls per cycle (vog_max_candidates)"; a
    # relation without evidence makes no call (vog_no_evidence) and takes no place.
    judge = ScriptedJudge({k: ("entailed", 0.9) for k in ("none", "k1", "k2", "k3")})
    settings = VerificationSettings.from_mapping({"vog_max_candidates": 2})
    decisions = verify_relations(
        [
            cand("none", "a", "b", source="", target=""),
            cand("k1", "a", "b"),
            cand("k2", "a", "b"),
            cand("k3", "a", "b"),
        ],
        NEIGHBOURS,
        settings,
        judge,
    )
    assert [i.key for i in judge.asked] == ["k1", "k2"]
    assert [d.level for d in decisions] == [
        "vog_no_evidence",
        "vog_grounded",
        "vog_grounded",
        "srmkg_cap",
    ]


def test_vog_reads_source_text_as_evidence_for_a_target_claim():
    # "asks an LLM whether source_text and target_text actually support the proposed
    # relation": between two claims the judge reads the FROM text and is asked whether
    # it supports the TO text.
    judge = ScriptedJudge({"m": ("entailed", 0.9)})
    verify_relations(
        [cand("m", "a", "b", source="the FROM span", target="the TO span", target_is_claim=True)],
        NEIGHBOURS,
        VerificationSettings(),
        judge,
    )
    (item,) = judge.asked
    assert item.spans == ("the FROM span",) and item.claim == "the TO span"


def test_target_claim_text_alone_is_no_evidence():
    # The TO claim's own text would support itself: without source_text there is nothing
    # to verify (honest contract: vog_no_evidence, no call).
    judge = ScriptedJudge({"m": ("entailed", 0.9)})
    (d,) = verify_relations(
        [cand("m", "a", "b", source="", target="the TO span", target_is_claim=True)],
        NEIGHBOURS,
        VerificationSettings(),
        judge,
    )
    assert d.level == "vog_no_evidence" and not d.accepted and judge.asked == []
