from dataclasses import dataclass

from tests.verifier.relations.scripted_judge import ScriptedJudge
from verifier.relations.chunks import verify_chunks
from verifier.relations.srmkg import VerificationSettings


@dataclass
class Chunk:
    text: str
    similarity: float


def test_chunk_prefilter_output_keys_and_routing():
    chunks = [Chunk("hi", 0.9), Chunk("lo", 0.1), Chunk("mid-yes", 0.5), Chunk("mid-no", 0.4)]
    # keys are the borderline chunks' positions
    judge = ScriptedJudge({"2": ("entailed", 0.8), "3": ("contradicted", 0.7)})
    out = verify_chunks(chunks, "query", judge=judge)
    assert set(out) == {
        "filtered",
        "verified",
        "rejected_vector",
        "rejected_srmkg",
        "rejected_vog",
        "vog_scores",
    }
    assert [c.text for c in out["filtered"]] == ["hi", "mid-yes"]
    assert [c.text for c in out["verified"]] == ["hi", "mid-yes"]
    assert [c.text for c in out["rejected_vector"]] == ["lo"]
    assert out["rejected_srmkg"] == out["rejected_vector"]
    assert [c.text for c in out["rejected_vog"]] == ["mid-no"]
    assert out["vog_scores"] == [0.8, 0.0]


def test_chunk_thresholds_are_their_own_and_cap_keeps_unverified():
    settings = VerificationSettings.from_mapping(
        {
            "chunk_vector_threshold_accept": 0.95,
            "chunk_vector_threshold_reject": 0.0,
            "vog_max_candidates": 0,
        }
    )
    chunks = [Chunk("a", 0.9), Chunk("b", 0.05)]
    judge = ScriptedJudge()
    out = verify_chunks(chunks, "q", settings=settings, judge=judge)
    assert [c.text for c in out["filtered"]] == ["a", "b"]
    assert out["verified"] == [] and out["rejected_vector"] == [] and judge.asked == []


def test_chunk_vog_cap_counts_only_chunks_that_make_a_call():
    settings = VerificationSettings.from_mapping({"vog_max_candidates": 1})
    chunks = [Chunk(" ", 0.5), Chunk("mid", 0.5)]
    judge = ScriptedJudge({"1": ("entailed", 0.8)})
    out = verify_chunks(chunks, "q", settings=settings, judge=judge)
    assert [i.key for i in judge.asked] == ["1"]
    assert [c.text for c in out["verified"]] == ["mid"]
    assert [c.text for c in out["rejected_vog"]] == [" "]
