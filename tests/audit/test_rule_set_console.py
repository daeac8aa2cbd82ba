"""The rule-set console under a walk: two saves at once, a pack name that cannot be
stored or read, a version that repeats the last one, and one name for each version."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from audit.forms import RuleSetForm
from audit.services import rule_set_builtin_ensure, rule_set_create
from tests.factories import make_user, make_workspace
from verifier.domain_packs import MAX_DOMAIN_PACK_CHARS
from verifier.models import RuleSet, RuleSetActivation, Source
from verifier.scoring.rulesets import CORE_V1
from verifier.selectors.rules import rule_set_label

NEW = reverse("audit:rule-set-new")


def _form_data(**changes):
    data = dict(RuleSetForm.initial_from(CORE_V1))
    data.update({"note": "", "domain_pack": "", "policy": "balanced"})
    data.update(changes)
    return data


def _blocked(pid: int) -> bool:
    """Whether the backend ``pid`` is waiting for a lock another transaction holds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT cardinality(pg_blocking_pids(%s)) > 0", [pid])
        row = cursor.fetchone()
    return bool(row and row[0])


# --- two saves of one name at once ----------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_values", [False, True])
def test_two_saves_of_a_new_name_at_once_never_500(same_values):
    """The first save's transaction stays open until the second is waiting on it. Two
    different definitions: the second takes version 2 once the first commits, never a
    500 on the unique (workspace, name, version). The same definition twice (a double
    submit): the second is refused as identical to version 1, nothing stored."""
    workspace = make_workspace("race")
    admin = make_user("ada", workspace=workspace, role="admin")
    first, second = Client(), Client()
    first.force_login(admin)
    second.force_login(admin)
    data = _form_data(name="Race rules", action="save")
    other_data = data if same_values else {**data, "balanced_min_overall_score": 0.8}
    second_pid: list[int] = []
    outcome: dict[str, Any] = {}

    def save_in_another_tab() -> None:
        try:
            connection.ensure_connection()
            second_pid.append(connection.connection.info.backend_pid)
            outcome["response"] = second.post(NEW, other_data)
        except BaseException as exc:  # surfaced below
            outcome["error"] = exc
        finally:
            connection.close()

    with transaction.atomic():
        assert first.post(NEW, data).status_code == 302
        other = threading.Thread(target=save_in_another_tab)
        other.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (second_pid and _blocked(second_pid[0])):
            time.sleep(0.02)
        assert second_pid and _blocked(second_pid[0]), "the second save never waited"
    other.join(timeout=30)
    assert "error" not in outcome, outcome.get("error")
    stored = RuleSet.objects.filter(workspace=workspace, name="Race rules").order_by("version")
    if same_values:
        # nothing was created: not a 200, a 409 naming the version it repeats
        assert outcome["response"].status_code == 409
        assert "identical to <a" in outcome["response"].content.decode()
        assert [rs.version for rs in stored] == [1]
    else:
        assert outcome["response"].status_code == 302
        assert [rs.version for rs in stored] == [1, 2]
        assert stored[1].definition["policies"] != stored[0].definition["policies"]


# --- a new domain pack's name ---------------------------------------------------------


def test_the_pack_limit_is_the_columns():
    for model in (RuleSetActivation, Source):
        assert model._meta.get_field("domain_pack").max_length == MAX_DOMAIN_PACK_CHARS


@pytest.mark.django_db
def test_a_new_pack_name_too_long_for_its_column_is_a_form_error_not_a_500(admin_client_ws):
    rule_set = rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    long_name = "p" * 10_000
    target = {"policy": "strict", "new_domain_pack": long_name, "create_pack": "1"}
    confirmation = admin_client_ws.post(activate, target)
    html = confirmation.content.decode()
    assert confirmation.status_code == 200
    assert "at most 64 characters" in html and 'id="new-pack-refused"' in html
    assert 'id="confirm-activate"' not in html
    # a refusal, not a confirmation: no "until you confirm", no flip list, a way back
    assert "<h1>Cannot activate" in html and "until you confirm" not in html
    assert "Flip list" not in html and 'id="choose-again"' in html
    done = admin_client_ws.post(activate, {**target, "confirm": "1"}, follow=True)
    back = done.redirect_chain[-1][0]
    assert back.split("?")[0] == reverse("audit:rule-set-detail", args=[rule_set.pk])
    assert back.endswith("&new_domain_pack=" + "p" * 64)  # typed again, cut to fit
    assert "A domain pack name has at most 64 characters; the new one has 10,000." in (
        done.content.decode()
    )
    builtin = admin_client_ws.post(
        reverse("audit:rule-set-builtin-activate"), {**target, "confirm": "1"}, follow=True
    )
    assert "at most 64 characters" in builtin.content.decode()
    assert not RuleSetActivation.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("gen\u200beral", "U+200B ZERO WIDTH SPACE at position 3"),
        ("law\u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE at position 3"),
        ("tab\there", "U+0009"),
    ],
)
def test_a_new_pack_name_with_an_invisible_character_is_refused(admin_client_ws, name, said):
    rule_set = rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    target = {"policy": "strict", "new_domain_pack": name, "create_pack": "1"}
    confirmation = admin_client_ws.post(activate, target).content.decode()
    assert said in confirmation and 'id="confirm-activate"' not in confirmation
    done = admin_client_ws.post(activate, {**target, "confirm": "1"}, follow=True)
    assert said in done.content.decode()
    assert not RuleSetActivation.objects.exists()


@pytest.mark.django_db
def test_a_new_pack_differing_from_one_only_in_case_is_refused_naming_it(admin_client_ws, source):
    assert source.domain_pack == "general"
    rule_set = rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    target = {"policy": "strict", "new_domain_pack": "General", "create_pack": "1"}
    said = "“General” differs from the existing domain pack “general” only in letter case"
    confirmation = admin_client_ws.post(activate, target).content.decode()
    assert said in confirmation and 'id="confirm-activate"' not in confirmation
    done = admin_client_ws.post(activate, {**target, "confirm": "1"}, follow=True)
    assert said in done.content.decode()
    assert not RuleSetActivation.objects.exists()
    # the pack itself, and a new name that reads differently, are still fine
    admin_client_ws.post(activate, {"policy": "strict", "domain_pack": "general", "confirm": "1"})
    admin_client_ws.post(activate, {**target, "new_domain_pack": "General law", "confirm": "1"})
    packs = list(RuleSetActivation.objects.order_by("id").values_list("domain_pack", flat=True))
    assert packs == ["general", "General law"]


# --- a version identical to the latest --------------------------------------------------


@pytest.mark.django_db
def test_resubmitting_the_same_definition_is_refused_naming_the_version_it_repeats(
    admin_client_ws, workspace
):
    first = admin_client_ws.post(
        NEW, _form_data(name="Delta rules", balanced_min_overall_score=0.7, action="save")
    )
    assert first.status_code == 302
    v1 = RuleSet.objects.get(workspace=workspace, name="Delta rules")
    again = _form_data(
        name="Delta rules", balanced_min_overall_score=0.8, action="save", **{"from": v1.pk}
    )
    assert admin_client_ws.post(f"{NEW}?from={v1.pk}", again).status_code == 302
    v2 = RuleSet.objects.get(workspace=workspace, name="Delta rules", version=2)
    # Back, and the same form submitted again: nothing stored, a link to version 2.
    for _ in range(2):
        refused = admin_client_ws.post(f"{NEW}?from={v1.pk}", again)
        html = refused.content.decode()
        assert refused.status_code == 409  # nothing was created: not a 200
        assert 'id="identical-version"' in html
        detail = reverse("audit:rule-set-detail", args=[v2.pk])
        assert f'identical to <a href="{detail}">version 2</a> (Delta rules v2)' in html
    assert RuleSet.objects.filter(workspace=workspace).count() == 2
    # Going back to version 1's numbers is a change from the latest, so it is a version.
    back = _form_data(
        name="Delta rules", balanced_min_overall_score=0.7, action="save", **{"from": v2.pk}
    )
    assert admin_client_ws.post(f"{NEW}?from={v2.pk}", back).status_code == 302
    assert RuleSet.objects.filter(workspace=workspace, name="Delta rules").count() == 3


@pytest.mark.django_db
def test_the_service_refuses_a_repeat_and_stores_nothing(workspace):
    from audit.services import RuleSetUnchanged

    tuned = replace(CORE_V1, name="Delta rules", display_name="")
    stored = rule_set_create(workspace=workspace, definition=tuned, note="first")
    with pytest.raises(RuleSetUnchanged) as refused:
        rule_set_create(workspace=workspace, definition=tuned, note="a different note")
    assert refused.value.rule_set == stored
    assert refused.value.status_code == 409  # a conflict with what is stored
    assert refused.value.details == {"rule_set": stored.pk, "version": 1}
    assert refused.value.message == (
        "This definition is identical to version 1 (Delta rules v1): nothing was saved."
    )
    assert RuleSet.objects.filter(workspace=workspace).count() == 1


# --- one name per version ---------------------------------------------------------------


@pytest.mark.django_db
def test_rule_set_label_spells_every_version_one_way(workspace, other_workspace):
    builtin = rule_set_builtin_ensure()
    copy = rule_set_create(workspace=workspace, definition=CORE_V1)  # a workspace "Core v1"
    tuned = replace(CORE_V1, name="Delta rules", display_name="")
    delta = rule_set_create(workspace=workspace, definition=tuned)
    stricter = replace(tuned, default_policy="strict")
    delta2 = rule_set_create(workspace=workspace, definition=stricter)
    core_again = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, default_policy="strict")
    )
    assert rule_set_label(CORE_V1) == "Core v1 (built-in)"
    assert rule_set_label(builtin) == "Core v1 (built-in)"
    assert rule_set_label(copy) == "Core v1"
    assert rule_set_label(core_again) == "Core v1 (version 2)"
    assert rule_set_label(delta) == "Delta rules v1"
    assert rule_set_label(delta2) == "Delta rules v2"
    assert rule_set_label(tuned) == "Delta rules v1"  # a definition not built in


def _core_mentions(html: str) -> list[str]:
    """Every way the page names the built-in (with what follows "Core v1")."""
    return re.findall(r"(?:Restormel )?Core v1(?: \([^)]*\))?", html)


@pytest.mark.django_db
def test_the_built_in_has_one_name_on_every_page(admin_client_ws, workspace):
    """Issue: six names ("Restormel Core v1 (built-in)", "Restormel Core v1", "New
    version from Core v1", "Core v1 (version 1) (built-in)", "Core v1 (version 1)",
    "Core v1 (built-in)") across the rules page, the compare page and the log."""
    builtin = rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[builtin.pk])
    admin_client_ws.post(activate, {"policy": "strict", "domain_pack": "", "confirm": "1"})
    tuned = replace(CORE_V1, name="Delta rules", display_name="")
    delta = rule_set_create(workspace=workspace, definition=tuned)
    name = "Core v1 (built-in)"

    rules = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert f">New version from {name}</a>" in rules
    assert f"<td>{name}</td><td>Strict</td>" in rules  # the activation log
    assert f"diff vs {name}</a>" in rules and f">{name}</a></td>" in rules
    assert set(_core_mentions(rules)) == {name}
    assert ">Delta rules v1</a>" in rules

    assert f"Activated {name} for all packs with the Strict policy; " in rules
    pages = {
        "compare": reverse("audit:rule-set-diff"),
        "compare a version": reverse("audit:rule-set-diff") + f"?a={builtin.pk}&b={delta.pk}",
        "confirm": None,
    }
    for label, url in pages.items():
        if url is None:
            response = admin_client_ws.post(activate, {"policy": "strict", "domain_pack": ""})
        else:
            response = admin_client_ws.get(url)
        html = response.content.decode()
        assert set(_core_mentions(html)) == {name}, label
    compare = admin_client_ws.get(reverse("audit:rule-set-diff")).content.decode()
    assert compare.count(f">{name}</option>") == 2  # left and right, once each

    detail = admin_client_ws.get(reverse("audit:rule-set-detail", args=[builtin.pk]))
    heading = re.search(r"<h1>(.*?)</h1>", detail.content.decode(), re.S)
    assert heading and heading.group(1) == name
    delta_page = admin_client_ws.get(reverse("audit:rule-set-detail", args=[delta.pk]))
    assert f"<h2>Compared with {name}</h2>" in delta_page.content.decode()
    form = admin_client_ws.get(NEW).content.decode()
    assert f'<span class="muted">from {name}</span>' in form


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Delta\u200brules", "U+200B ZERO WIDTH SPACE"),
        ("delta RULES", "“delta RULES” differs from the rule set “Delta rules” only in letter"),
        ("core v1", "“core v1” differs from the rule set “Core v1” only in letter case"),
    ],
)
def test_a_rule_set_name_must_read_as_what_it_is(admin_client_ws, workspace, name, says):
    from audit.services import rule_set_builtin_ensure as builtin

    builtin()
    admin_client_ws.post(NEW, _form_data(name="Delta rules", action="save"))
    before = RuleSet.objects.count()
    refused = admin_client_ws.post(
        NEW, _form_data(name=name, balanced_min_overall_score=0.75, action="save")
    )
    assert refused.status_code == 422 and says in refused.content.decode()
    assert RuleSet.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["999999", "abc"])
def test_comparing_with_a_version_that_is_not_there_says_so(admin_client_ws, value):
    response = admin_client_ws.get(reverse("audit:rule-set-diff"), {"a": value})
    assert response.status_code == 200
    page = response.content.decode()
    assert f"No rule-set version “{value}” in this workspace: Core v1 (built-in)" in page


@pytest.mark.django_db
def test_the_built_in_rule_sets_page_does_not_compare_it_with_itself(admin_client_ws):
    from audit.services import rule_set_builtin_ensure as builtin

    page = admin_client_ws.get(reverse("audit:rule-set-detail", args=[builtin().pk]))
    html = page.content.decode()
    assert 'id="builtin-compare"' in html and "Compared with Core v1" not in html


def _previewed(client, url, target):
    html = client.post(url, target).content.decode()
    found = re.search(r'name="previewed_against" value="(\d*)"', html)
    assert found, "no preview marker on the confirmation page"
    return {**target, "confirm": "1", "previewed_against": found.group(1)}


def test_an_activation_previewed_before_another_admins_is_refused(
    admin_client_ws, client, workspace, source
):
    """The confirmation showed the impact against the rule set then in force; dave then
    put another in force. Confirming the stale preview silently replaced his: it is
    refused, naming him, and nothing is activated. Confirming the same version again
    (the back button) is refused as already in force."""
    from audit.services import rule_set_activate, rule_set_builtin_ensure
    from tests.factories import make_user
    from verifier.models import RuleSetActivation

    builtin = rule_set_builtin_ensure()
    url = reverse("audit:rule-set-builtin-activate")
    target = {"domain_pack": "", "policy": "balanced"}
    confirm = _previewed(admin_client_ws, url, target)
    dave = make_user("dave", workspace=workspace, role="admin")
    rule_set_activate(
        workspace=workspace, rule_set=builtin, domain_pack="", policy="strict", actor=dave
    )
    before = RuleSetActivation.objects.count()

    refused = admin_client_ws.post(url, confirm, follow=True).content.decode()

    assert "dave put" in refused and "Preview it again" in refused
    assert RuleSetActivation.objects.count() == before
    again = _previewed(admin_client_ws, url, {"domain_pack": "", "policy": "strict"})
    said = admin_client_ws.post(url, again, follow=True).content.decode()
    assert "already in force" in said
    assert RuleSetActivation.objects.count() == before
    done = admin_client_ws.post(url, _previewed(admin_client_ws, url, target), follow=True)
    assert "Activated" in done.content.decode()
    assert RuleSetActivation.objects.count() == before + 1


def test_every_id_the_form_points_to_for_help_is_on_the_page(admin_client_ws):
    """``aria-describedby`` named help texts the form did not render (admin walk)."""
    import re

    page = admin_client_ws.get("/audit/rules/new/").content.decode()
    described = set(re.findall(r'aria-describedby="([^"]+)"', page))
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    missing = {ref for refs in described for ref in refs.split() if ref not in ids}
    assert described and not missing, missing


# --- admin walk: what the pages say against what they do ---------------------------------


@pytest.mark.django_db
def test_a_new_version_from_the_built_ins_row_is_named_as_its_own(admin_client_ws):
    """The version history's "New version from this" on the built-in's row offered the
    name "Core v1": saved, the workspace's own copy read "Core v1" beside the built-in
    "Core v1 (built-in)". Both links to the built-in now offer "Core v1 tuned"."""
    builtin = rule_set_builtin_ensure()
    for url in (NEW, f"{NEW}?from={builtin.pk}"):
        html = admin_client_ws.get(url).content.decode()
        assert re.search(r'name="name" value="Core v1 tuned"', html), url


@pytest.mark.django_db
def test_a_version_of_the_workspace_keeps_its_name_when_copied(admin_client_ws, workspace):
    delta = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules", display_name="")
    )
    html = admin_client_ws.get(f"{NEW}?from={delta.pk}").content.decode()
    assert re.search(r'name="name" value="Delta rules"', html)


@pytest.mark.django_db
def test_a_refused_activation_keeps_the_pack_and_policy_it_tried(
    admin_client_ws, workspace, source
):
    """Refused (another admin's activation since the preview), the version's page opened
    on "all packs" and the default policy: the admin's next "Activate…" targeted another
    pack than the one they had previewed. It keeps the pack and policy tried."""
    delta = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules", display_name="")
    )
    pack = source.domain_pack
    assert pack, "the fixture's source has a pack"
    url = reverse("audit:rule-set-activate", args=[delta.pk])
    stale = {"domain_pack": pack, "policy": "strict", "confirm": "1", "previewed_against": "999"}
    response = admin_client_ws.post(url, stale)
    assert response.status_code == 302
    assert response["Location"].endswith(f"?domain_pack={pack}&policy=strict")
    page = admin_client_ws.get(response["Location"]).content.decode()
    assert "Preview it again" in page
    assert re.search(rf'<option value="{pack}"[^>]* selected', page)
    assert re.search(r'<option value="strict" selected>Strict</option>', page)


@pytest.mark.django_db
def test_an_unknown_policy_in_the_address_opens_on_the_default(admin_client_ws, workspace):
    delta = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules", display_name="")
    )
    page = admin_client_ws.get(
        reverse("audit:rule-set-detail", args=[delta.pk]) + "?policy=bogus"
    ).content.decode()
    assert '<option value="balanced" selected>Balanced</option>' in page


@pytest.mark.django_db
def test_the_comparison_names_settings_in_the_forms_words(admin_client_ws, workspace):
    """The rows read "logical_structure · weight" and "strict · min overall score": raw
    keys, where the form that sets them says "Logical structure weight" and
    "strict: supported at ≥"."""
    delta = rule_set_create(
        workspace=workspace,
        definition=replace(CORE_V1, name="Delta rules", display_name="", default_policy="strict"),
    )
    page = admin_client_ws.get(reverse("audit:rule-set-detail", args=[delta.pk])).content.decode()
    assert "Logical structure · weight" in page
    assert "Evidence grounding · passing threshold" in page
    assert "Strict · supported at ≥" in page and "Lenient · weak at ≥" in page
    # the default policy in the same words (it read "strict")
    assert "strict" not in page.split("Definition JSON")[0].split("Default policy")[1][:200]
    assert "logical_structure" not in page.split("Definition JSON")[0]
    assert "min overall score" not in page


@pytest.mark.django_db
def test_a_note_longer_than_a_reviewers_is_a_form_error(admin_client_ws):
    """A 200,000-character note was stored and copied into the activity log."""
    response = admin_client_ws.post(NEW, _form_data(name="Noted", note="n" * 2001, action="save"))
    assert response.status_code == 422
    assert "at most 2000 characters" in response.content.decode()
    assert not RuleSet.objects.filter(name="Noted").exists()


@pytest.mark.django_db
def test_saving_from_an_older_version_says_the_newer_ones_do_not_carry_over(
    admin_client_ws, workspace
):
    """Two tabs open "New version from Delta rules v1"; one saves v2 (strict 0.9), the
    other then saves v3 (lenient changed): v3 silently dropped v2's change, and its page
    compared it with v1 only. The save says so."""
    v1 = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules", display_name="")
    )
    url = f"{NEW}?from={v1.pk}"
    base = _form_data(name="Delta rules", action="save")
    first = admin_client_ws.post(url, {**base, "strict_min_overall_score": "0.9"}, follow=True)
    assert "Saved Delta rules v2" in first.content.decode()
    assert "does not carry" not in first.content.decode()
    second = admin_client_ws.post(url, {**base, "lenient_weak_threshold": "0.2"}, follow=True)
    page = second.content.decode()
    assert "Saved Delta rules v3" in page
    assert "was made from version 1, not from version 2 saved since" in page
