"""The API guide's first example (``docs/api.md``, read from the guide itself) answers as
a reader of it would expect: the wall's length, stated by the source's "It is 412
metres long." after "The harbour wall was rebuilt in 1998.", is supported; the rebuild
year, quoted against 1998, is contradicted. Real database, binder and default judge."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier.models import Claim

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def _curl_body() -> dict:
    guide = GUIDE.read_text(encoding="utf-8")
    found = re.search(r"/connect/v1/claims/verify \\\n.*?-d '(\{.*?\})'\n", guide, re.S)
    assert found, "docs/api.md has no claims/verify curl example"
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_the_guides_claims_verify_example_answers_as_it_reads(api):
    body = _curl_body()
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    assert response.status_code == 200, response.content[:300]
    length, year = response.json()["results"]
    assert (length["state"], year["state"]) == ("supported", "contradicted"), (
        length["reason_text"],
        year["reason_text"],
    )
    assert length["span"]["quote"].endswith("It is 412 metres long.")
    assert Claim.objects.get(external_id="a-1").state == "supported"


def test_the_guides_python_example_polls_until_the_job_has_finished():
    """On a 202 the example keeps polling while the job is queued or running (one GET
    would print every row as ``pending``), and it is valid Python."""
    guide = GUIDE.read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", guide, re.S)
    assert found, "docs/api.md has no Python example"
    code = found.group(1)
    compile(code, "docs/api.md", "exec")
    assert 'while body["job"] is not None and body["job"]["status"] in ("queued", "running")' in (
        code
    )
