"""The verification job page speaks the console's vocabulary (auditor walk M2, L10): states
and reasons in words, a confidence as a percentage, and none for a verdict that gave no
answer."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_source
from verifier.models import VerificationJob

pytestmark = pytest.mark.django_db

TEXT = "The harbour wall was rebuilt in 1998 after the winter storms. It is 412 metres long."


def test_the_job_page_shows_words_and_no_confidence_for_no_answer(reviewer_client, workspace):
    make_source(workspace, ref="source:harbour", text=TEXT)
    response = reviewer_client.post(
        "/verify/",
        {"claims": '{"text": "Penguins nest on the wall.", "source": "source:harbour"}\n'},
    )
    job = VerificationJob.objects.get()
    html = reviewer_client.get(f"/verify/jobs/{job.pk}/").content.decode()
    assert response.status_code == 302
    row = html.split('class="verify-results"')[1].split("</table>")[0]
    body = row.split("<tbody>")[1]
    assert 'class="state state-unverified"' in body and ">Unverified<" in body
    assert ">unverified<" not in body  # the code is the badge's class, not its text
    cells = re.findall(r"<td>(.*?)</td>", body, re.S)
    assert "–" in cells  # the abstention's confidence: none
    assert not any(re.fullmatch(r"\d\.\d\d", c.strip()) for c in cells), cells
