"""A team starting without the demo: the first sign-in, the first workspace, the first
upload. Each step says what to do next."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.factories import make_claim, make_user
from verifier.management.commands.run_console import first_sign_in_hint
from verifier.pipeline.forms import IngestUploadForm

pytestmark = pytest.mark.django_db


def test_run_console_without_demo_says_how_to_get_the_first_sign_in() -> None:
    hint = first_sign_in_hint("127.0.0.1:8131")
    assert hint is not None
    assert "manage.py createsuperuser" in hint
    assert "http://127.0.0.1:8131/" in hint
    make_user("first")
    assert first_sign_in_hint("127.0.0.1:8131") is None


def test_a_staff_user_with_no_workspace_is_shown_how_to_make_one(client: Client) -> None:
    staff = make_user("founder")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    html = client.get("/").content.decode()
    assert 'id="first-workspace"' in html
    assert 'href="/admin/verifier/workspace/add/"' in html
    assert 'href="/admin/verifier/membership/add/"' in html
    assert "Ask an admin to add you" not in html


def test_a_plain_user_with_no_workspace_is_told_to_ask_an_admin(client: Client) -> None:
    client.force_login(make_user("newcomer"))
    html = client.get("/").content.decode()
    assert "Ask an admin to add you" in html
    assert "/admin/verifier/workspace/add/" not in html


def test_an_empty_workspace_points_its_admin_to_the_first_upload(
    admin_client_ws: Client, reviewer_client: Client, source: Any
) -> None:
    html = admin_client_ws.get("/").content.decode()
    assert 'id="workspace-empty"' in html
    assert 'href="/ingest/"' in html.split('id="workspace-empty"')[1].split("</div>")[0]
    reviewer_html = reviewer_client.get("/").content.decode()
    assert 'id="workspace-empty"' in reviewer_html
    # a reviewer may upload: told so, not to wait for an admin; an auditor waits
    empty = reviewer_html.split('id="workspace-empty"')[1].split("</div>")[0]
    assert "until an admin" not in empty and 'href="/ingest/">upload them' in empty
    auditor = make_user("aldo", workspace=source.workspace, role="auditor")
    auditor_client = Client()
    auditor_client.force_login(auditor)
    auditor_html = auditor_client.get("/").content.decode()
    assert "until a reviewer or an admin uploads sources" in auditor_html
    make_claim(source)
    assert 'id="workspace-empty"' not in admin_client_ws.get("/").content.decode()


def test_the_ingest_page_says_which_files_it_takes(admin_client_ws: Client) -> None:
    html = admin_client_ws.get("/ingest/").content.decode()
    assert "up to 5 MB each" in html
    assert "PDF or Word document: save it as text first" in html
    assert ">Plain text</option>" in html


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("report.pdf", b"%PDF-1.4\n\xff\xfe\x00binary", "save a PDF or Word document as text"),
        ("big.txt", b"a" * 5_000_001, "split it into smaller files"),
    ],
)
def test_a_refused_file_says_what_to_do_instead(name: str, content: bytes, says: str) -> None:
    form = IngestUploadForm({"format": "text"}, {"files": [SimpleUploadedFile(name, content)]})
    assert not form.is_valid()
    (error,) = form.non_field_errors()
    assert error.startswith(name)
    assert says in error
