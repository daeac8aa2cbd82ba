"""A new domain pack may not be named with the console's own words for all packs or the
default one ("all packs" beside "all packs (default)" on the Rules page), at any door;
the default pack "general" stays a name, and a pack already known keeps its name."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.services import rule_set_builtin_ensure
from tests.verifier.api.conftest import client_for
from verifier.domain_packs import domain_pack_problem
from verifier.models import RuleSetActivation, Source

READS_AS = "is how the console names all packs or the default one"


@pytest.mark.parametrize(
    "name",
    [
        "all packs",
        "All Packs",
        "ALL PACKS (DEFAULT)",
        "all  packs",  # two spaces
        "all\u00a0packs",  # a no-break space
        "all domain packs",
        "every pack",
        "all",
        "none",
        "no pack",
        "Default",
        "default pack",
    ],
)
def test_the_consoles_words_for_all_packs_or_the_default_are_refused(name):
    problem = domain_pack_problem(name, ["general", "coast"])
    assert problem is not None and READS_AS in problem, problem


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("general", []),  # the default pack is a name even before anything uses it
        ("general", ["general"]),
        ("General law", ["general"]),
        ("all-hands", ["general"]),
        ("packs", ["general"]),
        ("all", ["all"]),  # a pack already known keeps its name
    ],
)
def test_other_names_and_the_default_pack_stay_valid(name, known):
    assert domain_pack_problem(name, known) is None


def test_the_default_pack_in_another_case_is_refused_before_anything_uses_it():
    problem = domain_pack_problem("General", [])
    assert problem is not None and "“general”" in problem


def test_a_name_differing_from_a_known_pack_only_in_spacing_is_refused():
    problem = domain_pack_problem("coast\u00a0line", ["coast line"])
    assert problem is not None and "“coast line”" in problem


@pytest.mark.django_db
def test_the_rule_set_page_refuses_a_new_pack_named_all_packs(admin_client_ws, source):
    rule_set = rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    target = {"policy": "strict", "new_domain_pack": "all packs", "create_pack": "1"}
    confirmation = admin_client_ws.post(activate, target).content.decode()
    assert READS_AS in confirmation and 'id="confirm-activate"' not in confirmation
    done = admin_client_ws.post(activate, {**target, "confirm": "1"}, follow=True)
    assert READS_AS in done.content.decode()
    builtin = admin_client_ws.post(
        reverse("audit:rule-set-builtin-activate"), {**target, "confirm": "1"}, follow=True
    )
    assert READS_AS in builtin.content.decode()
    assert not RuleSetActivation.objects.exists()
    rules = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert '<th scope="row">all packs</th>' not in rules


@pytest.mark.django_db
def test_the_api_refuses_a_source_in_a_pack_named_all_packs(workspace):
    response = client_for(workspace).post(
        "/connect/v1/sources",
        {"ref": "source:harbour", "text": "The harbour wall.", "domain_pack": "All packs"},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_domain_pack" and error["details"]["field"] == "domain_pack"
    assert READS_AS in error["message"]
    assert not Source.objects.exists()
