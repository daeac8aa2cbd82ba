import pytest
from django.db import IntegrityError, transaction

from tests.factories import make_binding, make_claim
from verifier.models import Claim, EvidenceBinding, Verdict


def _binding(claim, start, end):
    version = claim.source.versions.first()
    return EvidenceBinding(
        claim=claim,
        source_version=version,
        quote="x",
        start=start,
        end=end,
        source_hash=version.sha256,
        match="exact",
        bound_by="quote",
    )


@pytest.mark.parametrize(("start", "end"), [(5, 5), (9, 3)])
def test_binding_offsets_must_be_ordered(source, start, end):
    claim = make_claim(source)
    with pytest.raises(IntegrityError), transaction.atomic():
        _binding(claim, start, end).save()


def test_binding_start_cannot_be_negative(source):
    claim = make_claim(source)
    with pytest.raises(IntegrityError), transaction.atomic():
        _binding(claim, -1, 4).save()


def test_binding_match_kind_is_checked(source):
    claim = make_claim(source)
    binding = _binding(claim, 0, 3)
    binding.match = "approximate"
    with pytest.raises(IntegrityError), transaction.atomic():
        binding.save()


def test_only_one_active_binding_per_claim(source):
    claim = make_claim(source)
    make_binding(claim, "Sediment settles")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_binding(claim, "current slows")


def test_claim_state_must_be_one_of_five(source):
    claim = make_claim(source)
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(state="verified")


def test_verdict_confidence_range(source):
    claim = make_claim(source)
    with pytest.raises(IntegrityError), transaction.atomic():
        Verdict.objects.create(
            claim=claim, judge_model="m", judge_family="f", label="entailed", confidence=1.5
        )


def test_claim_public_ids_look_like_the_seed(source):
    claim = make_claim(source)
    assert claim.public_id.startswith("claim:")
    assert len(claim.public_id) == len("claim:") + 12


def test_new_claim_public_ids_use_the_whole_alphabet_in_every_position():
    import re

    from verifier.models import new_claim_public_id

    ids = [new_claim_public_id() for _ in range(3000)]
    assert all(re.fullmatch(r"claim:[0-9a-z]{12}", i) for i in ids)
    assert len(set(ids)) == len(ids)
    for position in range(len("claim:"), len("claim:") + 12):
        # 3000 draws over 36 characters: every one appears (p(miss) < 1e-30).
        assert len({i[position] for i in ids}) == 36
