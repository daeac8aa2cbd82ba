from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from verifier.binding import recheck
from verifier.binding.spans import BoundSpan
from verifier.models import (
    Claim,
    ClaimRelation,
    EvidenceBinding,
    Membership,
    Source,
    SourceSentence,
    SourceVersion,
    StateEvent,
    Verdict,
)

MODELS = (
    Claim,
    Source,
    SourceVersion,
    SourceSentence,
    EvidenceBinding,
    Verdict,
    StateEvent,
    ClaimRelation,
)


def _counts():
    return {m.__name__: m.objects.count() for m in MODELS} | {
        "users": get_user_model().objects.count(),
        "memberships": Membership.objects.count(),
    }


@pytest.fixture
def demo_loaded(db):
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_load_demo_prints_the_logins(demo_loaded):
    assert "password 'spanproof-demo'" in demo_loaded
    assert "admin (admin)" in demo_loaded


def test_load_demo_twice_creates_nothing_new(demo_loaded):
    before = _counts()
    call_command("load_demo", stdout=StringIO())
    assert _counts() == before


def test_loading_again_keeps_what_an_admin_changed_in_a_demo_source(demo_loaded):
    """Each start loads the demo again: a source given a new version (and title) since is
    left as it is, not put back to the demo text as one more version (states walk, H2)."""
    from verifier.services.sources import source_upsert

    source = Source.objects.filter(workspace__slug="demo").order_by("pk").first()
    source_upsert(
        workspace=source.workspace,
        ref=source.ref,
        text="An admin's own text of this source.",
        title="An admin's title",
    )
    before = _counts()
    states = dict(Claim.objects.values_list("public_id", "state"))
    call_command("load_demo", stdout=StringIO())
    after = _counts()
    # (the worker's sentence index follows each source's current version: the admin's)
    after.pop("SourceSentence")
    before.pop("SourceSentence")
    assert after == before
    source.refresh_from_db()
    assert source.title == "An admin's title"
    assert source.versions.order_by("-number").first().text == "An admin's own text of this source."
    assert dict(Claim.objects.values_list("public_id", "state")) == states


def test_demo_has_claims_in_every_state(demo_loaded):
    states = set(Claim.objects.filter(workspace__slug="demo").values_list("state", flat=True))
    assert states == {"supported", "inferred", "unverified", "contradicted", "excluded"}


def test_demo_bindings_sit_at_their_offsets(demo_loaded):
    bindings = EvidenceBinding.objects.filter(claim__workspace__slug="demo", is_active=True)
    assert bindings.count() >= 8
    for binding in bindings.select_related("source_version"):
        text = binding.source_version.text
        assert text[binding.start : binding.end] == binding.quote
        span = BoundSpan(
            binding.quote, binding.start, binding.end, binding.match, binding.source_hash
        )
        assert recheck(span, text, binding.source_version.sha256) == "fresh"


def test_demo_roles_can_sign_in(demo_loaded, client):
    for username in ("admin", "reviewer", "auditor"):
        # Through the sign-in form: the lockout backend needs the request.
        credentials = {"username": username, "password": "spanproof-demo"}
        assert client.post("/accounts/login/", credentials).status_code == 302
        assert client.get("/").status_code == 200
        client.logout()


def test_demo_sources_have_their_sentence_index(demo_loaded):
    for version in SourceVersion.objects.all():
        assert SourceSentence.objects.filter(source_version=version).exists(), version


def test_the_demo_members_are_in_the_activity_log(demo_loaded, client):
    """The demo's members are added through the console's service, so the log that
    promises every change of who may do what shows them, made by a command (no actor),
    in the console and the API; loading again adds none (auditor walk L5)."""
    from django.contrib.auth import get_user_model

    from tests.verifier.api.conftest import client_for
    from verifier.models import Workspace, WorkspaceEvent

    demo = Workspace.objects.get(slug="demo")
    added = WorkspaceEvent.objects.filter(workspace=demo, action="member_added")
    assert sorted((e.target, e.details["role"], e.actor) for e in added) == [
        ("admin", "admin", None),
        ("auditor", "auditor", None),
        ("reviewer", "reviewer", None),
    ]
    call_command("load_demo", stdout=StringIO())
    assert added.count() == 3

    rows = client_for(demo).get("/connect/v1/activity?action=member_added").json()["results"]
    assert sorted((r["target"], r["details"]["role"], r["actor"]) for r in rows) == [
        ("admin", "admin", None),
        ("auditor", "auditor", None),
        ("reviewer", "reviewer", None),
    ]
    client.force_login(get_user_model().objects.get(username="admin"))
    page = client.get("/audit/activity/").content.decode()
    assert page.count("a command or task") >= 3 and "Member added" in page
