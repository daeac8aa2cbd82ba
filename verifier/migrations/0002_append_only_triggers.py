"""Append-only history, enforced by PostgreSQL.

Verdicts and state events reject UPDATE and DELETE; source versions reject UPDATE
(a version's text is immutable — changed text makes a new version).
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION spanproof_reject_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'spanproof: % on % is not allowed (append-only / immutable)', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""

TRIGGERS = [
    ("verifier_verdict", "UPDATE OR DELETE"),
    ("verifier_stateevent", "UPDATE OR DELETE"),
    ("verifier_sourceversion", "UPDATE"),
]


def forward_sql() -> list[str]:
    statements = [FUNCTION]
    for table, ops in TRIGGERS:
        statements.append(
            f"CREATE TRIGGER {table}_append_only BEFORE {ops} ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION spanproof_reject_change();"
        )
    return statements


def reverse_sql() -> list[str]:
    statements = [
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};" for table, _ in TRIGGERS
    ]
    statements.append("DROP FUNCTION IF EXISTS spanproof_reject_change();")
    return statements


class Migration(migrations.Migration):
    dependencies = [("verifier", "0001_initial")]

    operations = [migrations.RunSQL(sql=forward_sql(), reverse_sql=reverse_sql())]
