"""A console form sent with an out-of-date security token gets a page in the console's
layout saying the form expired, with a way back; nothing is done."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_user
from verifier.models import ApiKey

pytestmark = pytest.mark.django_db


def test_an_expired_form_is_a_page_that_says_so(workspace):
    admin = make_user("ada", workspace=workspace, role="admin")
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    client.get("/audit/api-keys/")  # sets the CSRF cookie
    response = client.post(
        "/audit/api-keys/new/",
        {"name": "ci", "scope": "read", "csrfmiddlewaretoken": "x" * 64},
        headers={"Referer": "http://testserver/audit/api-keys/"},
    )
    assert response.status_code == 403
    page = response.content.decode()
    assert "<h1>This form has expired</h1>" in page and "Nothing was done." in page
    assert '<a href="/audit/api-keys/" id="error-back">' in page
    assert 'id="skip-link"' in page or "<nav" in page  # the console's layout
    assert not ApiKey.objects.exists()
