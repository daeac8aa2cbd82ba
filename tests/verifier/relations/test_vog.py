import pytest

from tests.verifier.relations.scripted_judge import ScriptedJudge
from verifier.relations import vog
from verifier.relations.vog import VogQuestion


@pytest.mark.parametrize(
    ("answer", "verdict", "confidence"),
    [
        ("GROUNDED", "GROUNDED", 1.0),
        ("grounded 0.8", "GROUNDED", 0.8),
        ("PARTIAL (confidence: 0.6)", "PARTIAL", 0.6),
        ("REJECTED, confidence=0.9", "REJECTED", 0.9),
        ("UNGROUNDED", None, None),
        ("not grounded", None, None),
        ("Not GROUNDED 0.9", None, None),
        ("grounded not", None, None),
        ("GROUNDEDNESS: high", None, None),
        ("GROUNDED 1.7", None, None),
        ("", None, None),
        (None, None, None),
        ("maybe", None, None),
    ],
)
def test_parse_verdict_exact_labels_only(answer, verdict, confidence):
    parsed = vog.parse_verdict(answer)
    if verdict is None:
        assert parsed is None
    else:
        assert parsed == vog.ParsedVerdict(verdict, confidence)


def q(key, source="Aspirin inhibits COX-1.", target="COX-1 makes thromboxane."):
    return VogQuestion(
        key=key, statement="aspirin inhibits COX-1", source_text=source, target_text=target
    )


def test_no_evidence_rejects_without_calling_the_judge():
    judge = ScriptedJudge({"a": ("entailed", 0.9)})
    out = vog.vog_ask(judge, [q("a", source=" ", target="")])
    assert out["a"].level == vog.LEVEL_NO_EVIDENCE
    assert out["a"].vog_score == 0.0
    assert judge.asked == []


@pytest.mark.parametrize(
    ("answers", "down", "level", "grounded", "score"),
    [
        ({"a": ("entailed", 0.8)}, False, vog.LEVEL_GROUNDED, True, 0.8),
        ({"a": ("abstained", 0.6)}, False, vog.LEVEL_PARTIAL, False, 0.3),
        ({"a": ("contradicted", 0.9)}, False, vog.LEVEL_REJECTED, False, 0.0),
        ({}, False, vog.LEVEL_UNAVAILABLE, False, 0.0),  # empty answer (omitted twice)
        ({"a": ("entailed", 0.8)}, True, vog.LEVEL_UNAVAILABLE, False, 0.0),  # outage
        ({"a": ("UNGROUNDED", 0.8)}, False, vog.LEVEL_UNAVAILABLE, False, 0.0),  # bad label
    ],
)
def test_vog_outcomes(answers, down, level, grounded, score):
    out = vog.vog_ask(ScriptedJudge(answers, down=down), [q("a")])["a"]
    assert out.level == level
    assert out.grounded is grounded
    assert out.vog_score == pytest.approx(score)


def test_no_judge_configured_is_unavailable():
    assert vog.vog_ask(None, [q("a")])["a"].level == vog.LEVEL_UNAVAILABLE


@pytest.mark.parametrize(
    ("label", "level"),
    [
        ("contradicted", vog.LEVEL_GROUNDED),
        ("entailed", vog.LEVEL_REJECTED),
        ("abstained", vog.LEVEL_PARTIAL),
    ],
)
def test_contradiction_relation_is_grounded_by_a_contradicted_answer(label, level):
    question = VogQuestion(
        key="a",
        statement="X was not built",
        source_text="X was built",
        target_text="",
        contradiction=True,
    )
    assert vog.vog_ask(ScriptedJudge({"a": (label, 0.9)}), [question])["a"].level == level
