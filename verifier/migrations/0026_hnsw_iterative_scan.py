"""Nearest-neighbour scans keep going until enough rows pass their filter.

Every HNSW scan here filters by workspace (and sometimes domain pack) after the index
has produced its ``hnsw.ef_search`` nearest candidates. In a shared index a small
workspace's rows may be none of them, and the scan then returned nothing at all. With
pgvector's iterative scan (0.8+) in ``strict_order`` the scan fetches more candidates
until the ``LIMIT`` is filled from rows that pass, still nearest first, bounded by
``hnsw.max_scan_tuples`` (20,000 by default). Set for the database, so every session
has it (also behind a transaction-pooling PgBouncer), and for the migrating session.
"""

from django.db import migrations


def _set(apps, schema_editor):
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT '[1]'::vector")  # loads pgvector, which defines the setting
        cursor.execute(
            f"ALTER DATABASE {quote(connection.settings_dict['NAME'])} "
            "SET hnsw.iterative_scan = 'strict_order'"
        )
        cursor.execute("SET hnsw.iterative_scan = 'strict_order'")


def _unset(apps, schema_editor):
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"ALTER DATABASE {quote(connection.settings_dict['NAME'])} RESET hnsw.iterative_scan"
        )
        cursor.execute("RESET hnsw.iterative_scan")


class Migration(migrations.Migration):
    dependencies = [("verifier", "0025_audit_packs")]

    operations = [migrations.RunPython(_set, _unset)]
