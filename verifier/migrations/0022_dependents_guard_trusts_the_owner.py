"""``Claim.dependents`` may be changed only by the relation count triggers.

The guard of migration 0016 let any update made inside a trigger through
(``pg_trigger_depth() > 1``). The runtime role may create temporary tables (the ingest
pipeline's binary COPY goes through one) and so a trigger function of its own in
``pg_temp``: an update it made from such a trigger counted as the count triggers' own,
and it could set ``dependents`` to anything. It could also attach the count function
itself (EXECUTE was granted to PUBLIC) to a temporary table of its own and feed it
made-up rows.

Now the count function runs as the table owner (``SECURITY DEFINER``, its search path
fixed with ``pg_temp`` last so a temporary table cannot stand in for a real one), only
the owner may attach it (EXECUTE revoked from PUBLIC), and the guard keeps a changed
value only for an update made inside a trigger *by the owner of verifier_claim*. An
update from the runtime role keeps the stored value at any trigger depth.
"""

from django.db import migrations

FORWARD = """
ALTER FUNCTION verifier_claimrelation_dependents()
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp;
REVOKE EXECUTE ON FUNCTION verifier_claimrelation_dependents() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION verifier_claim_dependents_guard() FROM PUBLIC;

CREATE OR REPLACE FUNCTION verifier_claim_dependents_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The count triggers' own update: inside a trigger, and run as the table's owner
    -- (their function is SECURITY DEFINER). A trigger of the runtime role's own (on a
    -- temporary table) runs as the runtime role and gets no exemption.
    IF pg_trigger_depth() > 1
       AND current_user = (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = TG_RELID)
    THEN
        RETURN NEW;
    END IF;
    IF NEW.state IN ('unverified', 'contradicted', 'inferred')
       AND OLD.state NOT IN ('unverified', 'contradicted', 'inferred') THEN
        NEW.dependents := (SELECT count(*) FROM verifier_claimrelation WHERE to_claim_id = NEW.id)
            + (SELECT count(*) FROM verifier_claimrelation WHERE from_claim_id = NEW.id);
    ELSE
        NEW.dependents := OLD.dependents;
    END IF;
    RETURN NEW;
END $$;
"""

REVERSE = """
ALTER FUNCTION verifier_claimrelation_dependents() SECURITY INVOKER RESET search_path;
GRANT EXECUTE ON FUNCTION verifier_claimrelation_dependents() TO PUBLIC;
GRANT EXECUTE ON FUNCTION verifier_claim_dependents_guard() TO PUBLIC;

CREATE OR REPLACE FUNCTION verifier_claim_dependents_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NEW;
    END IF;
    IF NEW.state IN ('unverified', 'contradicted', 'inferred')
       AND OLD.state NOT IN ('unverified', 'contradicted', 'inferred') THEN
        NEW.dependents := (SELECT count(*) FROM verifier_claimrelation WHERE to_claim_id = NEW.id)
            + (SELECT count(*) FROM verifier_claimrelation WHERE from_claim_id = NEW.id);
    ELSE
        NEW.dependents := OLD.dependents;
    END IF;
    RETURN NEW;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0021_verdict_claim_latest"),
    ]

    operations = [migrations.RunSQL(sql=FORWARD, reverse_sql=REVERSE)]
