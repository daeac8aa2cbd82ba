"""The offline checker names where a quote and its source text part: a changed word past
the first 60 characters of a span was reported as two identical shortened quotes
(auditor walk: "exact quote "(CNN)A military…" is not what … has at [373, 555):
"(CNN)A military…""), so the auditor could not see what changed."""

from __future__ import annotations

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import judged_claim
from tests.verifier.audit_pack.conftest import jsonl, unzip, write_jsonl, write_pack
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, first_difference

pytestmark = pytest.mark.django_db

TEXT = (
    "A military helicopter carrying officials surveying earthquake damage crashed Friday "
    "night in the southeastern Mexican state of Oaxaca, killing 13 people, officials said."
)


def test_a_changed_number_past_the_shortened_quote_is_shown_where_it_changed(workspace, tmp_path):
    source = make_source(workspace, ref="source:oaxaca", text=TEXT)
    claim = judged_claim(source, "Thirteen people died.", quote=TEXT)
    folder = unzip(write_pack(workspace, tmp_path / "pack.zip"), tmp_path / "pack")
    rows = jsonl(folder, check.CLAIMS_FILE)
    (row,) = [r for r in rows if r["id"] == claim.public_id]
    row["bindings"][0]["quote"] = TEXT.replace("killing 13", "killing 31")
    write_jsonl(folder, check.CLAIMS_FILE, rows)

    report = check_pack(folder)

    (spans,) = [p.message for p in report.problems if p.check == "spans"]
    at = TEXT.index("13")
    assert f"they first differ at character {at} of the span (offset {at})" in spans
    assert 'the quote reads "… of Oaxaca, killing 31 people, officials said."' in spans
    assert 'the text "… of Oaxaca, killing 13 people, officials said."' in spans


def test_the_first_difference_of_a_quote_cut_short_or_at_the_start():
    assert first_difference("abc", "abd") == (2, '"abc"', '"abd"')
    # one a prefix of the other: they part where the shorter ends
    at, quote, found = first_difference("x" * 30 + "tail", "x" * 30)
    assert at == 30 and quote == '"…' + "x" * 20 + 'tail"' and found == '"…' + "x" * 20 + '"'
