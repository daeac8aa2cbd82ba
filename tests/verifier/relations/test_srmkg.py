import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.relations import srmkg
from verifier.relations.srmkg import Components, VerificationSettings

DEFAULTS = VerificationSettings()


@pytest.mark.parametrize(
    ("base", "na", "nb", "rtype", "expected_score", "decision"),
    [
        # the seed's accept example: 0.4·1.0 + 0.4·0.7 + 0.05 = 0.73 → accept
        (1.0, set("abcdefg"), set("abcdefghij"), "treats", 0.73, "accept"),
        # borderline: 0.4·0.5 + 0.4·0.5 + 0.05 = 0.45 → VoG
        (0.5, {"a", "b"}, {"a", "b", "c", "d"}, "part_of", 0.45, "vog"),
        # unnamed type gets no boost: 0.4·0.5 + 0.4·0.5 = 0.40 → VoG
        (0.5, {"a", "b"}, {"a", "b", "c", "d"}, "related_to", 0.40, "vog"),
        (0.5, {"a", "b"}, {"a", "b", "c", "d"}, "unknown", 0.40, "vog"),
        # isolated endpoint: 0.4·0.9 + 0 + 0.05 − 0.3 = 0.11 → reject
        (0.9, set(), {"a"}, "treats", 0.11, "reject"),
        # exactly at the thresholds: 0.7 accepts, 0.3 is borderline
        (0.75, {"a"}, {"a"}, "related_to", 0.70, "accept"),
        (0.75, {"a"}, {"b"}, "related_to", 0.30, "vog"),
    ],
)
def test_score_and_decision(base, na, nb, rtype, expected_score, decision):
    parts = srmkg.components(
        base_confidence=base, relation_type=rtype, neighbours_a=na, neighbours_b=nb
    )
    value = srmkg.score(parts, DEFAULTS)
    assert value == pytest.approx(expected_score)
    assert srmkg.decide(value, DEFAULTS) == decision


def test_jaccard_uses_deg_a_plus_deg_b_minus_common():
    parts = srmkg.components(
        base_confidence=0, relation_type="x", neighbours_a={1, 2, 3}, neighbours_b={2, 3, 4, 5}
    )
    assert parts.jaccard == pytest.approx(2 / (3 + 4 - 2))
    assert parts.isolated == 0.0


def test_workspace_settings_override_and_honour_zero():
    settings = VerificationSettings.from_mapping(
        {
            "srmkg_w_type_boost": 0,
            "srmkg_penalty_isolated": 0.0,
            "vog_max_candidates": 0,
            "srmkg_threshold_accept": 0.9,
            "srmkg_w_base": None,
        }
    )
    assert settings.srmkg_w_type_boost == 0.0
    assert settings.srmkg_penalty_isolated == 0.0
    assert settings.vog_max_candidates == 0
    assert settings.srmkg_threshold_accept == 0.9
    assert settings.srmkg_w_base == 0.4  # None means "not configured"
    parts = Components(base=1.0, jaccard=0.0, type_boost=1.0, isolated=1.0)
    assert srmkg.score(parts, settings) == pytest.approx(0.4)


def test_inverted_thresholds_are_refused():
    with pytest.raises(ValueError):
        VerificationSettings.from_mapping({"srmkg_threshold_accept": 0.2})


def test_calibrated_score_is_sigmoid_of_learned_combination():
    cal = srmkg.Calibration(
        weights={"base": 2.0, "jaccard": 1.0, "type_boost": 0.0, "isolated": -3.0}, bias=-1.0
    )
    parts = Components(base=0.5, jaccard=1.0, type_boost=1.0, isolated=0.0)
    assert srmkg.score(parts, DEFAULTS, cal) == pytest.approx(srmkg.sigmoid(1.0))


nodes = st.frozensets(st.integers(0, 30), max_size=20)


@given(base=st.floats(0, 1), na=nodes, nb=nodes, named=st.booleans())
def test_score_range_and_components_are_bounded(base, na, nb, named):
    parts = srmkg.components(
        base_confidence=base,
        relation_type="treats" if named else "related_to",
        neighbours_a=na,
        neighbours_b=nb,
    )
    assert 0.0 <= parts.jaccard <= 1.0
    assert parts.isolated == (1.0 if not na or not nb else 0.0)
    value = srmkg.score(parts, DEFAULTS)
    assert -0.3 - 1e-9 <= value <= 0.85 + 1e-9
    # symmetric in the endpoints
    swapped = srmkg.components(
        base_confidence=base,
        relation_type="treats" if named else "related_to",
        neighbours_a=nb,
        neighbours_b=na,
    )
    assert swapped == parts
