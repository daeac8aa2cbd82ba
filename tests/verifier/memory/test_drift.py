"""The seed-002 drift rubric, one row per seed example, plus the non-material cases."""

from __future__ import annotations

import pytest

from verifier.memory import compare

SOURCE = "I'll try to send the draft this week if nothing comes up."


@pytest.mark.parametrize(
    ("claim", "source", "category", "claim_evidence", "source_evidence"),
    [
        # Temporal shift: "this week" → "Friday"
        (
            "I'll try to send the draft Friday if nothing comes up.",
            SOURCE,
            "temporal_shift",
            "Friday",
            "this week",
        ),
        # Confidence shift: "I'll try" → "I will"
        (
            "I will send the draft this week if nothing comes up.",
            SOURCE,
            "confidence_shift",
            None,
            "try",
        ),
        # Scope shift: "the draft" → "the final report"
        (
            "I'll try to send the final report this week if nothing comes up.",
            SOURCE,
            "scope_shift",
            "final report",
            "draft",
        ),
        # Conditionality removed: "if nothing comes up" → (omitted)
        (
            "I'll try to send the draft this week.",
            SOURCE,
            "conditionality_removed",
            None,
            "if nothing comes up",
        ),
        # Precision added: "this week" → "Friday 5pm"
        (
            "I'll try to send the draft Friday 5pm if nothing comes up.",
            SOURCE,
            "precision_added",
            "5pm",
            "this week",
        ),
        # Actor shift inside the content: speaker and addressee swapped
        (
            "You'll send me the draft this week.",
            "I'll send you the draft this week.",
            "actor_shift",
            "You'll",
            "I'll",
        ),
        # Certainty added is a confidence shift too
        (
            "I'll definitely send the draft this week.",
            "I'll send the draft this week.",
            "confidence_shift",
            "definitely",
            None,
        ),
        # A quantity changed is a scope shift
        (
            "I booked a table for 4 people.",
            "I booked a table for 2 people.",
            "scope_shift",
            "4",
            "2",
        ),
        # An exact number where the source was vague is precision added
        (
            "I'll send 3 samples.",
            "I'll send a few samples.",
            "precision_added",
            "3",
            "a few",
        ),
    ],
)
def test_seed_drift_examples(claim, source, category, claim_evidence, source_evidence):
    report = compare(claim, source)
    assert report.categories == (category,)
    (finding,) = report.findings
    if claim_evidence is None:
        assert finding.claim_span is None
    else:
        assert claim[slice(*finding.claim_span)] == claim_evidence
    if source_evidence is None:
        assert finding.source_span is None
    else:
        assert source[slice(*finding.source_span)].startswith(source_evidence)


@pytest.mark.parametrize(
    ("claim", "source", "kind", "near_verbatim"),
    [
        # Synonym substitution: "deliver" ↔ "send" (both directions)
        (
            "I will deliver the draft this week.",
            "I will send the draft this week.",
            "synonym_substitution",
            False,
        ),
        (
            "I will send the draft this week.",
            "I will deliver the draft this week.",
            "synonym_substitution",
            False,
        ),
        # Tense normalisation: "I said I will" ↔ "I said I would"
        ("I said I would", "I said I will", "tense_normalization", True),
        (
            "I would send the draft this week.",
            "I'll send the draft this week.",
            "tense_normalization",
            True,
        ),
        # Filler removal: "I, uh, said" → "I said"
        ("I said", "I, uh, said", "filler_removal", True),
        (
            "I'll send the draft this week.",
            "I'll, um, send the draft, you know, this week.",
            "filler_removal",
            True,
        ),
    ],
)
def test_non_material_differences_never_drift(claim, source, kind, near_verbatim):
    report = compare(claim, source)
    assert report.categories == ()
    assert report.non_material == (kind,)
    assert report.equivalent
    assert report.near_verbatim is near_verbatim


def test_several_non_material_kinds_are_all_reported():
    report = compare("I would deliver it, uh, today.", "I'll send it today.")
    assert report.categories == ()
    assert set(report.non_material) == {
        "synonym_substitution",
        "tense_normalization",
        "filler_removal",
    }


def test_identical_text_has_neither_drift_nor_non_material_difference():
    report = compare(SOURCE, SOURCE)
    assert report.categories == () and report.non_material == () and report.near_verbatim


def test_a_non_material_fold_never_hides_a_material_change():
    # "deliver" ↔ "send" is folded, but "Friday" for "this week" still counts.
    report = compare("I will deliver the draft Friday.", "I will send the draft this week.")
    assert report.categories == ("temporal_shift",)


def test_later_clock_time_is_a_temporal_shift_not_precision():
    report = compare("The table is booked for 8 pm.", "The table is booked for 7 pm.")
    assert report.categories == ("temporal_shift",)


def test_dropping_a_timeframe_in_a_summary_is_not_drift():
    assert compare("I'll send the draft.", "I'll send the draft this week.").categories == ()
