"""``Claim.dependents`` belongs to the relation count triggers (migrations 0016, 0022):
the runtime role cannot set it, not even from a trigger of its own.

The runtime role may create temporary tables (the ingest pipeline's binary COPY goes
through one), so it can also create a trigger function in ``pg_temp`` and a trigger on
a temporary table. Each attack below runs as that role on its own connection; the
claim's stored count must not move, and the legitimate path (a relation row) still
counts.
"""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim, ClaimRelation

pytestmark = pytest.mark.skipif(
    not settings.DATABASE_OWNER, reason="no owner/runtime role split configured"
)

FORGED = 999

ATTACKS = {
    # a trigger function of the runtime role's own, fired by a temporary table
    "pg_temp_trigger_function": [
        "CREATE TEMPORARY TABLE bait (id int)",
        f"""CREATE FUNCTION pg_temp.forge() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE verifier_claim SET dependents = {FORGED} WHERE id = {{claim}};
                RETURN NULL;
            END $$""",
        "CREATE TRIGGER bait_forge AFTER INSERT ON pg_temp.bait "
        "FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.forge()",
        "INSERT INTO bait VALUES (1)",
    ],
    # two levels of its own triggers, so the update runs at depth 3
    "nested_pg_temp_triggers": [
        "CREATE TEMPORARY TABLE bait (id int)",
        "CREATE TEMPORARY TABLE relay (id int)",
        f"""CREATE FUNCTION pg_temp.forge() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE verifier_claim SET dependents = {FORGED} WHERE id = {{claim}};
                RETURN NULL;
            END $$""",
        """CREATE FUNCTION pg_temp.pass_on() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO relay VALUES (1); RETURN NULL; END $$""",
        "CREATE TRIGGER relay_forge AFTER INSERT ON pg_temp.relay "
        "FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.forge()",
        "CREATE TRIGGER bait_pass AFTER INSERT ON pg_temp.bait "
        "FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.pass_on()",
        "INSERT INTO bait VALUES (1)",
    ],
    # the real count function, fed made-up relation rows from a temporary table
    "count_function_on_a_temporary_table": [
        "CREATE TEMPORARY TABLE verifier_claimrelation (from_claim_id bigint, to_claim_id bigint)",
        "CREATE TRIGGER fake_count AFTER INSERT ON pg_temp.verifier_claimrelation "
        "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
        "EXECUTE FUNCTION public.verifier_claimrelation_dependents()",
        "INSERT INTO pg_temp.verifier_claimrelation "
        f"SELECT {{claim}}, {{claim}} FROM generate_series(1, {FORGED})",
    ],
}


def _dependents(claim: Claim) -> int:
    return Claim.objects.values_list("dependents", flat=True).get(pk=claim.pk)


@pytest.fixture
def queued(transactional_db) -> Claim:
    source = make_source(make_workspace("guard"), text="Silt settles in still water.")
    claim = make_claim(source, text="Silt settles.", state="unverified", state_reason="abstained")
    assert _dependents(claim) == 0
    return claim


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_runtime_role_cannot_forge_dependents_from_a_trigger(name, queued, runtime):
    try:
        for statement in ATTACKS[name]:
            runtime.execute(statement.format(claim=queued.pk))
    except psycopg.Error:
        pass  # refused outright is as good as ignored
    assert _dependents(queued) == 0


def test_runtime_role_cannot_set_dependents_directly(queued, runtime):
    runtime.execute(f"UPDATE verifier_claim SET dependents = {FORGED} WHERE id = %s", [queued.pk])
    assert _dependents(queued) == 0


def test_a_relation_written_by_the_runtime_role_still_counts(queued, runtime):
    other = make_claim(queued.source, text="Water slows.", state="unverified")
    runtime.execute(
        "INSERT INTO verifier_claimrelation (workspace_id, from_claim_id, to_claim_id, kind, "
        "confidence, verification, verification_level, needs_review, created_at) "
        "VALUES (%s, %s, %s, 'supports', 0.5, 'pending', '', false, now())",
        [queued.workspace_id, other.pk, queued.pk],
    )
    assert _dependents(queued) == 1
    assert ClaimRelation.objects.filter(to_claim=queued).count() == 1
