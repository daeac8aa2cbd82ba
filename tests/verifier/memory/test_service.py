"""The memory service against the real database, binder, embeddings and default judge."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, InternalError, transaction

from verifier.memory import TranscriptInputError
from verifier.models import Claim, MemoryCheck, MemoryTranscript, Source, StateEvent, Verdict
from verifier.selectors.memory import memory_agent_stats
from verifier.services.memory import memory_transcript_import, memory_verify

TURNS = [
    {"speaker": "user", "text": "Can you get me the report?"},
    {"speaker": "agent", "text": "I'll try to send the draft this week if nothing comes up."},
    {"speaker": "user", "text": "Thanks."},
]


@pytest.mark.django_db
def test_import_stores_a_hashed_version_with_turn_offsets(workspace):
    write = memory_transcript_import(workspace=workspace, data=TURNS)
    row = write.transcript
    assert (
        write.created
        and row.source.ref.startswith("transcript:")
        and row.source.domain_pack == "memory"
    )
    for turn, raw in zip(row.turns, TURNS, strict=True):
        assert row.version.text[turn["start"] : turn["end"]] == raw["text"]
    again = memory_transcript_import(workspace=workspace, data=TURNS)
    assert not again.created and again.transcript.pk == row.pk
    assert Source.objects.filter(workspace=workspace).count() == 1


@pytest.mark.django_db
def test_bad_transcript_raises(workspace):
    with pytest.raises(TranscriptInputError):
        memory_transcript_import(workspace=workspace, data=[{"speaker": "a"}])


@pytest.mark.django_db
def test_verify_stores_checks_and_memory_claims_through_the_state_writer(workspace):
    message = (
        'I said "I\'ll try to send the draft this week if nothing comes up." '
        'Then I said "I will send the draft this week if nothing comes up."'
    )
    write = memory_verify(
        workspace=workspace, agent="agent", message=message, transcript_data=TURNS
    )
    assert [v.outcome for v in write.verdicts] == ["supported:exact", "unsupported:drift"]
    checks = MemoryCheck.objects.filter(workspace=workspace).order_by("id")
    assert [c.outcome for c in checks] == ["supported:exact", "unsupported:drift"]
    assert checks[1].drift_categories == ["confidence_shift"]
    exact, drift = (c.claim for c in checks)
    assert exact.origin == "memory" and exact.state == "supported"
    assert drift.state == "contradicted" and drift.flagged
    binding = exact.bindings.get(is_active=True)
    assert binding.source_version_id == write.transcript.version_id
    assert binding.source_version.text[binding.start : binding.end] == exact.text
    assert StateEvent.objects.filter(claim__in=[exact, drift]).count() >= 2
    assert Verdict.objects.get(claim=drift).label == "contradicted"


@pytest.mark.django_db
def test_out_of_scope_stores_no_claim(workspace):
    write = memory_verify(
        workspace=workspace,
        agent="agent",
        message="As discussed, it is done.",
        transcript_data=TURNS,
    )
    assert write.verdicts[0].outcome == "inconclusive:insufficient"
    assert MemoryCheck.objects.get().claim is None
    assert not Claim.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("data", "code"), [(None, "no_transcript"), ("  ", "empty_transcript")])
def test_without_a_transcript_nothing_is_checked_or_stored(workspace, data, code):
    """Issue 39, point 4: a check with no (or an empty) transcript was stored and read as
    a result ("No material drift")."""
    from verifier.memory import TranscriptInputError

    with pytest.raises(TranscriptInputError) as refused:
        memory_verify(
            workspace=workspace, agent="agent", message='I said "x y z"', transcript_data=data
        )
    assert refused.value.code == code
    assert not MemoryCheck.objects.exists() and not MemoryTranscript.objects.exists()


@pytest.mark.django_db
def test_checks_are_append_only(workspace):
    memory_verify(
        workspace=workspace, agent="agent", message='I said "x y z"', transcript_data=TURNS
    )
    check = MemoryCheck.objects.get()
    with pytest.raises((IntegrityError, InternalError), match="append-only"), transaction.atomic():
        MemoryCheck.objects.filter(pk=check.pk).update(outcome="supported:exact")


@pytest.mark.django_db
def test_agent_stats_need_ten_claims(workspace):
    row = memory_transcript_import(workspace=workspace, data=TURNS).transcript
    message = 'I said "I\'ll try to send the draft this week if nothing comes up."'
    for _ in range(9):
        memory_verify(workspace=workspace, agent="agent", message=message, transcript=row)
    stats = memory_agent_stats(workspace=workspace, agent="AGENT")
    assert stats["evaluated_claims"] == 9 and stats["support_rate"] is None
    memory_verify(workspace=workspace, agent="agent", message=message, transcript=row)
    stats = memory_agent_stats(workspace=workspace, agent="agent")
    assert stats["support_rate"]["value"] == 1.0
    assert stats["support_rate"]["ci95"][0] == pytest.approx(0.7225, abs=1e-4)
    assert memory_agent_stats(workspace=workspace, agent="nobody") is None


@pytest.mark.django_db
def test_rubric_paraphrase_and_drift_under_incomplete_coverage_are_stored_and_counted(
    workspace,
):
    from tests.verifier.relations.scripted_judge import ScriptedJudge

    judge = ScriptedJudge({"memory": ("abstained", 0.5)})  # an external judge that abstains
    row = memory_transcript_import(workspace=workspace, data=TURNS).transcript
    message = "I mentioned that I would try to deliver the draft this week if nothing comes up."
    result = memory_verify(
        workspace=workspace, agent="agent", message=message, transcript=row, judge=judge
    )
    (check,) = result.checks
    assert check.outcome == "supported:paraphrase"
    verdict = Verdict.objects.get(claim=check.claim)
    assert (verdict.label, verdict.judge_model) == ("entailed", "spanproof-memory-rules-v1")
    check.claim.refresh_from_db()
    assert check.claim.state == "supported"
    gap = {"turns": [dict(t, idx=i) for i, t in zip((0, 1, 5), TURNS, strict=True)]}
    drifted = 'I said "I\'ll try to send the draft Friday if nothing comes up."'
    for _ in range(9):
        out = memory_verify(
            workspace=workspace, agent="agent", message=drifted, transcript_data=gap
        )
    (check,) = out.checks
    assert check.outcome == "inconclusive:insufficient"
    assert check.drift_categories == ["temporal_shift"]
    stats = memory_agent_stats(workspace=workspace, agent="agent")
    assert stats["evaluated_claims"] == 10
    assert stats["drift_rate"]["value"] == 0.9 and stats["support_rate"]["value"] == 0.1


@pytest.mark.django_db
def test_a_transcript_never_takes_over_a_document_sources_ref(workspace):
    from verifier.services.sources import source_upsert

    document = source_upsert(
        workspace=workspace, ref="source:harbour", text="The harbour wall is 412 metres long."
    )
    with pytest.raises(TranscriptInputError) as refused:
        memory_transcript_import(workspace=workspace, data=TURNS, ref="source:harbour")
    assert refused.value.code == "ref_in_use"
    source = Source.objects.get(workspace=workspace, ref="source:harbour")
    assert source.versions.count() == 1 and source.domain_pack == document.source.domain_pack
    assert not MemoryTranscript.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_a_transcript_ref_takes_the_transcripts_next_version(workspace):
    first = memory_transcript_import(
        workspace=workspace, data=TURNS, ref="transcript:chat-1"
    ).transcript
    longer = [*TURNS, {"speaker": "agent", "text": "Sent."}]
    second = memory_transcript_import(
        workspace=workspace, data=longer, ref="transcript:chat-1"
    ).transcript
    assert second.source_id == first.source_id
    assert second.version.number == first.version.number + 1
