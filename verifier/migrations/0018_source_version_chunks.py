"""``SourceVersionChunk``: each source version's text in chunks of 1,024 characters, so
the database cuts a span out of a long version by reading the chunks that hold it.
PostgreSQL reaches a character offset in UTF-8 text by counting from the first byte,
so ``substring(text FROM start ...)`` on a 200 KB version read and decompressed up to
the whole text for every span the read-time re-check cut (40 spans near the end of
200 KB versions: ~100 ms; from chunks: ~2 ms).

- ``spanproof_text_chunks(text)``: the chunks of a text, in one linear pass
  (``string_to_table`` by character; cutting each chunk with ``substring`` would count
  from the start for each one, quadratic in the length);
- a statement-level AFTER INSERT trigger on ``verifier_sourceversion`` writes the chunks
  of the versions a statement inserts (services, ``bulk_create`` and COPY alike);
- chunks are immutable like their version (UPDATE and DELETE rejected);
- ``spanproof_version_span(version, start, end)``: the version's characters
  ``[start, end)``, exactly what ``substring(text FROM start + 1 FOR end - start)``
  gives (an empty string for an empty or out-of-range span, a shorter one for a span
  past the end);
- the versions already stored get their chunks here (the trigger exists first and
  holds off concurrent inserts until this migration commits)."""

import django.db.models.deletion
from django.db import migrations, models

CHUNK_CHARS = 1024  # verifier.models.sources.SPAN_CHUNK_CHARS

FORWARD = [
    f"""
CREATE OR REPLACE FUNCTION spanproof_text_chunks(body text)
RETURNS TABLE (chunk_index integer, chunk_text text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((t.n - 1) / {CHUNK_CHARS})::integer, string_agg(t.c, '' ORDER BY t.n)
    FROM string_to_table(body, NULL) WITH ORDINALITY AS t(c, n)
    GROUP BY 1
$$;
""",
    """
CREATE OR REPLACE FUNCTION spanproof_sourceversion_chunks() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO verifier_sourceversionchunk (version_id, "index", "text")
    SELECT v.id, t.chunk_index, t.chunk_text
    FROM inserted v CROSS JOIN LATERAL spanproof_text_chunks(v.text) t;
    RETURN NULL;
END;
$$;
""",
    "CREATE TRIGGER verifier_sourceversion_chunks AFTER INSERT ON verifier_sourceversion "
    "REFERENCING NEW TABLE AS inserted "
    "FOR EACH STATEMENT EXECUTE FUNCTION spanproof_sourceversion_chunks();",
    "CREATE TRIGGER verifier_sourceversionchunk_append_only BEFORE UPDATE OR DELETE "
    "ON verifier_sourceversionchunk FOR EACH ROW EXECUTE FUNCTION spanproof_reject_change();",
    f"""
CREATE OR REPLACE FUNCTION spanproof_version_span(p_version bigint, p_start integer, p_end integer)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT COALESCE(
        substring(string_agg(k."text", '' ORDER BY k."index")
                  FROM p_start - min(k."index") * {CHUNK_CHARS} + 1
                  FOR GREATEST(p_end - p_start, 0)),
        '')
    FROM verifier_sourceversionchunk k
    WHERE k."version_id" = p_version
      AND k."index" BETWEEN GREATEST(p_start, 0) / {CHUNK_CHARS}
                        AND GREATEST(p_end - 1, p_start, 0) / {CHUNK_CHARS}
$$;
""",
    'INSERT INTO verifier_sourceversionchunk (version_id, "index", "text") '
    "SELECT v.id, t.chunk_index, t.chunk_text FROM verifier_sourceversion v "
    "CROSS JOIN LATERAL spanproof_text_chunks(v.text) t;",
]

REVERSE = [
    "DROP FUNCTION IF EXISTS spanproof_version_span(bigint, integer, integer);",
    "DROP TRIGGER IF EXISTS verifier_sourceversionchunk_append_only ON verifier_sourceversionchunk;",
    "DROP TRIGGER IF EXISTS verifier_sourceversion_chunks ON verifier_sourceversion;",
    "DROP FUNCTION IF EXISTS spanproof_sourceversion_chunks();",
    "DROP FUNCTION IF EXISTS spanproof_text_chunks(text);",
]


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0017_trace_ws_created"),
    ]

    operations = [
        migrations.CreateModel(
            name="SourceVersionChunk",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("index", models.PositiveIntegerField()),
                ("text", models.TextField()),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chunks",
                        to="verifier.sourceversion",
                    ),
                ),
            ],
            options={
                "ordering": ["version_id", "index"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("version", "index"), name="sourceversionchunk_unique_index"
                    )
                ],
            },
        ),
        migrations.RunSQL(FORWARD, REVERSE),
    ]
