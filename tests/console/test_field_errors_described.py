"""A field in error points at its message (``aria-describedby``, which Django sets to
``<id>_error``) and the message is there under that id, so a screen reader reads it."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _dangling(html: str) -> list[str]:
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    described = [
        ref for refs in re.findall(r'aria-describedby="([^"]+)"', html) for ref in refs.split()
    ]
    return [ref for ref in described if ref not in ids]


@pytest.mark.parametrize(
    ("url", "form"),
    [
        ("/audit/webhooks/new/", {"url": "not a url", "secret": "short", "threshold": "101"}),
        ("/audit/api-keys/new/", {"name": "", "scope": "read"}),
        ("/audit/members/new/", {"username": "", "role": "reviewer"}),
        ("/audit/memory/", {"agent": "", "message": "", "transcript": ""}),
    ],
)
def test_every_field_in_error_points_at_its_message(admin_client_ws, url, form):
    response = admin_client_ws.post(url, form)
    html = response.content.decode()
    assert response.status_code in (200, 400, 422)
    assert "aria-describedby" in html and 'aria-invalid="true"' in html, url
    assert _dangling(html) == []
