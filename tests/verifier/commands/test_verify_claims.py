"""``manage.py verify_claims``: JSONL in, JSONL out, exit 1 unless every claim holds."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from verifier.models import Claim, ClaimOrigin, Source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

HARBOUR = (
    "The harbour wall was rebuilt in 1998 after the winter storms. It is 412 metres long. "
    "Fishing boats moor on its inner side."
)


def write_inputs(tmp_path, claims):
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "Harbour.txt").write_text(HARBOUR, encoding="utf-8")
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in claims), encoding="utf-8")
    return path, sources


def run(path, sources, workspace, **kw):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command(
            "verify_claims",
            str(path),
            workspace=workspace.slug,
            source_dir=str(sources),
            stdout=out,
            stderr=err,
            **kw,
        )
    except SystemExit as exc:
        code = exc.code
    return code, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_every_claim_supported_exits_0_with_results_in_order(tmp_path, workspace):
    path, sources = write_inputs(
        tmp_path,
        [
            {"text": "It is 412 metres long.", "source": "source:harbour.txt", "external_id": "a"},
            {
                "text": "Fishing boats moor on its inner side.",
                "source": "source:harbour.txt",
                "quote": "Fishing boats moor on its inner side.",
            },
        ],
    )
    code, rows, err = run(path, sources, workspace)
    assert code == 0, rows
    assert [r["index"] for r in rows] == [0, 1]
    assert all(r["state"] == "supported" for r in rows)
    assert "100.0% 2/2" in err
    assert Source.objects.get(workspace=workspace, ref="source:harbour.txt").title == "Harbour.txt"
    assert Claim.objects.filter(origin=ClaimOrigin.API, workspace=workspace).count() == 2


def test_an_unsupported_or_invalid_claim_exits_1(tmp_path, workspace):
    path, sources = write_inputs(
        tmp_path,
        [
            {"text": "It is 412 metres long.", "source": "source:harbour.txt"},
            {"text": "Anything.", "source": "source:missing"},
        ],
    )
    output = tmp_path / "results.jsonl"
    code, rows, _ = run(path, sources, workspace, output=str(output))
    assert code == 1 and rows == []
    written = [json.loads(line) for line in output.read_text().splitlines()]
    assert [r["status"] for r in written] == ["verified", "error"]
    assert written[1]["error"]["code"] == "unknown_source"


def test_a_bad_line_names_its_number_and_stores_nothing(tmp_path, workspace):
    path, sources = write_inputs(tmp_path, [{"text": "It is 412 metres long.", "source": "s"}])
    with path.open("a") as handle:
        handle.write("{oops\n")
    with pytest.raises(CommandError, match=r"claims.jsonl:2: not JSON"):
        run(path, sources, workspace)
    assert not Claim.objects.exists()


def test_a_file_name_as_source_is_refused_naming_the_refs_the_folder_made(tmp_path, workspace):
    """A newcomer cites the file ("Harbour.txt"): the refusal says what the folder's
    files are called, so the next try can work."""
    path, sources = write_inputs(
        tmp_path, [{"text": "It is 412 metres long.", "source": "Harbour.txt"}]
    )
    with pytest.raises(CommandError) as refused:
        run(path, sources, workspace)
    message = str(refused.value)
    assert "No source with the ref 'Harbour.txt'" in message
    assert "the files in --source-dir are source:harbour.txt " in message
    assert not Claim.objects.exists()


def test_an_unknown_ref_without_a_folder_says_how_to_name_a_source(tmp_path, workspace):
    path, _ = write_inputs(tmp_path, [{"text": "It is 412 metres long.", "source": "harbour"}])
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match=r"pass --source-dir to store the cited files"):
        call_command("verify_claims", str(path), workspace=workspace.slug, stdout=out, stderr=err)


def test_a_row_citing_an_unknown_ref_gets_the_hint_on_stderr(tmp_path, workspace):
    path, sources = write_inputs(
        tmp_path,
        [
            {"text": "It is 412 metres long.", "source": "source:harbour.txt"},
            {"text": "Anything.", "source": "harbour.txt"},
        ],
    )
    code, rows, err = run(path, sources, workspace)
    assert code == 1
    assert rows[1]["error"]["code"] == "unknown_source"
    assert "the files in --source-dir are source:harbour.txt " in err


def test_a_file_the_commands_stored_under_its_old_ref_gets_a_new_version_of_it(tmp_path, workspace):
    """Until the commands named files as the Ingest page does, Harbour.txt was stored as
    source:harbour: the folder's file is a new version of that source, not a second one."""
    old = source_upsert(
        workspace=workspace, ref="source:harbour", text="An older text.", title="Harbour.txt"
    ).source
    path, sources = write_inputs(
        tmp_path, [{"text": "It is 412 metres long.", "source": "source:harbour"}]
    )
    _code, rows, _ = run(path, sources, workspace)
    assert rows[0]["state"] == "supported", rows
    assert list(Source.objects.filter(workspace=workspace).values_list("ref", flat=True)) == [
        "source:harbour"
    ]
    assert old.versions.count() == 2
