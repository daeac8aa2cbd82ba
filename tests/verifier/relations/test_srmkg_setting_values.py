"""A relation-verification setting of the wrong kind is refused with a ValueError that
names the setting and the value: ``bool("false")`` read as true, and a non-numeric
string failed in the ingest store stage with Python's bare "could not convert"."""

from __future__ import annotations

import pytest

from verifier.relations.srmkg import VerificationSettings


@pytest.mark.parametrize(
    ("raw", "kept"),
    [(True, True), (False, False), ("false", False), ("true", True), (" False ", False)],
)
def test_log_decisions_takes_a_bool_or_true_false(raw: object, kept: bool) -> None:
    settings = VerificationSettings.from_mapping({"srmkg_log_decisions": raw})
    assert settings.srmkg_log_decisions is kept


@pytest.mark.parametrize("raw", ["no", "0", "", 0, 1, 0.0, [], {}])
def test_log_decisions_refuses_anything_else(raw: object) -> None:
    with pytest.raises(ValueError, match=r"srmkg_log_decisions=.*expected true or false") as exc:
        VerificationSettings.from_mapping({"srmkg_log_decisions": raw})
    assert repr(raw) in str(exc.value)


@pytest.mark.parametrize(
    ("name", "raw", "kept"),
    [
        ("srmkg_w_base", 0.5, 0.5),
        ("srmkg_w_base", 1, 1.0),
        ("srmkg_w_base", "0.25", 0.25),
        ("vog_max_candidates", 12, 12),
        ("vog_max_candidates", 12.0, 12),
        ("vog_max_candidates", "7", 7),
    ],
)
def test_numbers_and_numeric_strings_are_kept(name: str, raw: object, kept: object) -> None:
    value = getattr(VerificationSettings.from_mapping({name: raw}), name)
    assert value == kept and type(value) is type(kept)


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("srmkg_w_jaccard", "abc", "expected a number"),
        ("srmkg_w_jaccard", True, "expected a number"),
        ("srmkg_w_jaccard", "nan", "expected a number"),
        ("srmkg_w_jaccard", float("inf"), "expected a number"),
        ("srmkg_w_jaccard", [0.3], "expected a number"),
        ("vog_max_candidates", "many", "expected a number"),
        ("vog_max_candidates", 2.5, "expected a whole number"),
        ("vog_max_candidates", False, "expected a number"),
    ],
)
def test_anything_else_names_the_setting_and_the_value(name: str, raw: object, says: str) -> None:
    with pytest.raises(ValueError) as exc:
        VerificationSettings.from_mapping({name: raw})
    assert str(exc.value) == f"{name}={raw!r}: {says}"
