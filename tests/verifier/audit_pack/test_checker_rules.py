"""The checker's own copies of the rules (it ships alone, standard library only) agree
with the project's: Ed25519 with ``cryptography`` and RFC 8032's test vectors, the fold
and the fuzzy similarity with the binding core and rapidfuzz, the five-state rules with
``verifier.states`` on every combination of inputs."""

from __future__ import annotations

import itertools

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from verifier.audit_pack import check, signing
from verifier.binding.normalization import fold as core_fold
from verifier.binding.normalization import normalize as core_normalize
from verifier.binding.recheck import DEFAULT_FUZZY_FLOOR, span_matches
from verifier.states import DEFAULT_POLICY, StateInputs, VerdictInput, resolve_state

# RFC 8032, section 7.1: TEST 1, TEST 2, TEST 3 (secret key, public key, message, signature).
RFC8032_VECTORS = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


@pytest.mark.parametrize(("secret", "public", "message", "signature"), RFC8032_VECTORS)
def test_ed25519_rfc8032_vectors(secret, public, message, signature):
    # The vectors are what cryptography makes from the secret key ...
    assert signing.public_key_of(bytes.fromhex(secret)).hex() == public
    assert signing.sign(bytes.fromhex(secret), bytes.fromhex(message)).hex() == signature
    # ... and the checker's pure-Python verify accepts them, and nothing else.
    pub, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert check.ed25519_verify(pub, msg, sig)
    assert not check.ed25519_verify(pub, msg + b"x", sig)
    assert not check.ed25519_verify(pub, msg, sig[:-1] + bytes([sig[-1] ^ 1]))
    assert not check.ed25519_verify(pub, msg, bytes([sig[0] ^ 1]) + sig[1:])


def test_ed25519_rejects_a_non_canonical_s():
    _secret, public, message, signature = RFC8032_VECTORS[1]
    sig = bytes.fromhex(signature)
    s = int.from_bytes(sig[32:], "little") + check._Q  # same point, s >= q: malleable
    forged = sig[:32] + s.to_bytes(32, "little")
    assert not check.ed25519_verify(bytes.fromhex(public), bytes.fromhex(message), forged)


@settings(max_examples=25, deadline=None)
@given(message=st.binary(max_size=300))
def test_ed25519_verifies_what_cryptography_signs(message):
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    other = Ed25519PrivateKey.generate().public_key()
    other_public = other.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    signature = private.sign(message)
    assert check.ed25519_verify(public, message, signature)
    assert not check.ed25519_verify(other_public, message, signature)


TRICKY = [
    "",
    "  Plain  text  ",
    "The \u201cdelta\u201d \u2014 it\u2019s big",
    "ﬁne ﬂour\u00a0and\u2009thin\u3000spaces",
    "soft\u00adhyphen zero\u200bwidth",
    "ÉCOLE Straße İstanbul",
    "tab\tand\nnewline\r\n",
    "x\ufe0fy",
    "①②③ ｆｕｌｌｗｉｄｔｈ",
]


@pytest.mark.parametrize("text", TRICKY)
def test_fold_is_the_binding_cores(text):
    assert check.fold(text) == core_fold(text)
    assert check.normalize(text) == core_normalize(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_fold_matches_the_binding_core_on_any_text(text):
    assert check.fold(text) == core_fold(text)
    assert check.normalize(text) == core_normalize(text)


@settings(max_examples=300, deadline=None)
@given(a=st.text(alphabet="abcde xyz", max_size=40), b=st.text(alphabet="abcde xyz", max_size=40))
def test_similarity_is_rapidfuzz_ratio(a, b):
    assert check.similarity(a, b) == fuzz.ratio(a, b) / 100.0


@settings(max_examples=300, deadline=None)
@given(
    quote=st.text(alphabet="ab c\u2019\u00a0-", min_size=1, max_size=30),
    span=st.text(alphabet="ab c'\u00a0\u2014", min_size=1, max_size=30),
    match=st.sampled_from(["exact", "normalized", "fuzzy"]),
)
def test_span_matches_as_the_binding_core(quote, span, match):
    assert check.span_matches(quote, span, match, DEFAULT_FUZZY_FLOOR) == span_matches(
        quote, span, match
    )


LABELS = ("entailed", "contradicted", "abstained", "coverage_gap")
CONFIDENCES = (0.0, 0.49, 0.5, 0.93)
NOTES = (
    "",
    "self-consistency disagreement",
    "no_bound_evidence",
    "judge_reviewers_disagree: reviewers would say contradicted",
)


def _verdicts(confidences, notes, labels=LABELS):
    yield None
    for label, confidence, note in itertools.product(labels, confidences, notes):
        yield VerdictInput(label=label, confidence=confidence, note=note)


def _as_dict(verdict):
    if verdict is None:
        return None
    return {"label": verdict.label, "confidence": verdict.confidence, "note": verdict.note}


def test_resolve_state_is_the_five_state_rules_on_every_input():
    policy = check.Policy(
        confidence_floor=DEFAULT_POLICY.confidence_floor,
        bound_match_kinds=tuple(DEFAULT_POLICY.bound_match_kinds),
        fuzzy_floor=DEFAULT_FUZZY_FLOOR,
    )
    strict = check.Policy(0.5, ("exact", "normalized"), DEFAULT_FUZZY_FLOOR)
    from verifier.states import STRICT_MATCH_POLICY

    cases = 0
    for binding, match, model, human, excluded, legacy in itertools.product(
        ("fresh", "stale", "none"),
        (None, "exact", "normalized", "fuzzy"),
        list(_verdicts(CONFIDENCES, NOTES)),
        list(_verdicts((0.3, 1.0), ("",), (*LABELS, "not_stated"))),  # a reviewer's
        (False, True),
        (False, True),
    ):
        inputs = StateInputs(binding, match, model, human, excluded, legacy)
        for core_policy, pack_policy in ((DEFAULT_POLICY, policy), (STRICT_MATCH_POLICY, strict)):
            want = resolve_state(inputs, core_policy)
            got = check.resolve_state(
                binding=binding,
                match=match,
                model=_as_dict(model),
                human=_as_dict(human),
                excluded=excluded,
                legacy_affirmed=legacy,
                policy=pack_policy,
            )
            assert got == (want.state.value, want.reason.value), inputs
            cases += 1
    assert cases > 10_000


def test_fingerprints_name_the_changed_leaf():
    record = {"id": "claim:a", "verdicts": [{"label": "entailed", "confidence": 0.9}], "x": {}}
    shape, fields = check.record_fingerprint(record)
    changed = {"id": "claim:a", "verdicts": [{"label": "entailed", "confidence": 0.8}], "x": {}}
    shape2, fields2 = check.record_fingerprint(changed)
    paths = [p for p, _ in check.leaves(record)]
    assert paths == ["id", "verdicts[0].confidence", "verdicts[0].label", "x"]
    assert shape == shape2
    differ = [
        paths[i]
        for i in range(len(paths))
        if fields[8 * i : 8 * i + 8] != fields2[8 * i : 8 * i + 8]
    ]
    assert differ == ["verdicts[0].confidence"]
    # A string "1" and a number 1 are different values.
    assert check.record_fingerprint({"a": "1"}) != check.record_fingerprint({"a": 1})
