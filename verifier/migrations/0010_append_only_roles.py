"""Evidence bindings and source versions become append-only in the database.

- A binding rejects DELETE and any UPDATE that changes a column other than
  ``is_active`` (a new version of the evidence is a new row; deactivating the previous
  binding is the one change allowed).
- A source version now rejects DELETE as well as UPDATE (0002 rejected UPDATE only).
- ``spanproof_analyze(regclass)`` lets the runtime role, which owns no table, refresh a
  table's planner statistics (``ANALYZE`` needs the owner on PostgreSQL 16): it runs as
  its owner (SECURITY DEFINER) and only for tables in ``public``. The runtime role gets
  EXECUTE from ``manage.py migrate`` (``config/database_roles.py``).
"""

from django.db import migrations

BINDING_GUARD = """
CREATE OR REPLACE FUNCTION spanproof_evidencebinding_guard() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'spanproof: DELETE on % is not allowed (append-only)', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (to_jsonb(NEW) - 'is_active') IS DISTINCT FROM (to_jsonb(OLD) - 'is_active') THEN
        RAISE EXCEPTION 'spanproof: UPDATE on % may change only is_active (a new version '
            'of the evidence is a new row)', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

ANALYZE_FUNCTION = """
CREATE OR REPLACE FUNCTION spanproof_analyze(target regclass) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = target AND n.nspname = 'public' AND c.relkind IN ('r', 'p')
    ) THEN
        RAISE EXCEPTION 'spanproof_analyze: % is not a table of the app', target;
    END IF;
    EXECUTE format('ANALYZE (SKIP_LOCKED) %s', target);
END;
$$;
REVOKE ALL ON FUNCTION spanproof_analyze(regclass) FROM PUBLIC;
"""

FORWARD = [
    BINDING_GUARD,
    "CREATE TRIGGER verifier_evidencebinding_append_only BEFORE UPDATE OR DELETE "
    "ON verifier_evidencebinding FOR EACH ROW "
    "EXECUTE FUNCTION spanproof_evidencebinding_guard();",
    "DROP TRIGGER IF EXISTS verifier_sourceversion_append_only ON verifier_sourceversion;",
    "CREATE TRIGGER verifier_sourceversion_append_only BEFORE UPDATE OR DELETE "
    "ON verifier_sourceversion FOR EACH ROW EXECUTE FUNCTION spanproof_reject_change();",
    ANALYZE_FUNCTION,
]

REVERSE = [
    "DROP FUNCTION IF EXISTS spanproof_analyze(regclass);",
    "DROP TRIGGER IF EXISTS verifier_sourceversion_append_only ON verifier_sourceversion;",
    "CREATE TRIGGER verifier_sourceversion_append_only BEFORE UPDATE "
    "ON verifier_sourceversion FOR EACH ROW EXECUTE FUNCTION spanproof_reject_change();",
    "DROP TRIGGER IF EXISTS verifier_evidencebinding_append_only ON verifier_evidencebinding;",
    "DROP FUNCTION IF EXISTS spanproof_evidencebinding_guard();",
]


class Migration(migrations.Migration):
    dependencies = [("verifier", "0009_relation_verification")]

    operations = [migrations.RunSQL(sql=FORWARD, reverse_sql=REVERSE)]
