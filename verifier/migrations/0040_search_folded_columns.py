"""The searched columns folded and stored: ``Claim.text_folded``, ``Source.ref_folded``
and ``Source.title_folded``, generated columns (``GENERATED ALWAYS AS (...) STORED``) that
hold the text, ref and title as the console's searches compare them
(``verifier.text.search_fold``: case, accents, Unicode form and whitespace runs
folded). PostgreSQL writes them on every insert and on every change of the column they
fold, so the rule is applied once per write, not once per row on every search.

Data: adding them computes them for every existing row (the claim table is rewritten
under a lock: a few seconds per 100,000 claims, ``bench/claim_search.py``). Nothing
stored is changed. Both tables are analyzed afterwards: without statistics on the new
columns PostgreSQL guesses that a search matches a handful of rows, and a search for
common words on the claim list took 3.9 s at 100,000 claims instead of 0.2 ms. The
expression is the rule's SQL as text, so a change of the rule shows up as a schema
change (``makemigrations --check``)."""

import django.db.models.expressions
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0039_relation_decision_withdraws"),
    ]

    operations = [
        migrations.AddField(
            model_name="claim",
            name="text_folded",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.expressions.RawSQL(
                    "normalize(regexp_replace(replace(replace(replace(translate(regexp_replace(lower(normalize(\"text\", NFKD)), E'[\\u0300-\\u036f]+', '', 'g'), E'\\u00f8\\u0142\\u0111\\u0127\\u0167\\u0131\\u03c2', E'oldhti\\u03c3'), E'\\u00df', E'ss'), E'\\u00e6', E'ae'), E'\\u0153', E'oe'), E'[\\u0009\\u000a\\u000b\\u000c\\u000d \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+', ' ', 'g'), NFC)",
                    (),
                ),
                help_text="The text as the console's searches compare it (case, accents, Unicode form and whitespace runs folded).",
                output_field=models.TextField(),
            ),
        ),
        migrations.AddField(
            model_name="source",
            name="ref_folded",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.expressions.RawSQL(
                    "normalize(regexp_replace(replace(replace(replace(translate(regexp_replace(lower(normalize(\"ref\", NFKD)), E'[\\u0300-\\u036f]+', '', 'g'), E'\\u00f8\\u0142\\u0111\\u0127\\u0167\\u0131\\u03c2', E'oldhti\\u03c3'), E'\\u00df', E'ss'), E'\\u00e6', E'ae'), E'\\u0153', E'oe'), E'[\\u0009\\u000a\\u000b\\u000c\\u000d \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+', ' ', 'g'), NFC)",
                    (),
                ),
                help_text="The ref as the console's searches compare it (case, accents, Unicode form and whitespace runs folded).",
                output_field=models.TextField(),
            ),
        ),
        migrations.AddField(
            model_name="source",
            name="title_folded",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.expressions.RawSQL(
                    "normalize(regexp_replace(replace(replace(replace(translate(regexp_replace(lower(normalize(\"title\", NFKD)), E'[\\u0300-\\u036f]+', '', 'g'), E'\\u00f8\\u0142\\u0111\\u0127\\u0167\\u0131\\u03c2', E'oldhti\\u03c3'), E'\\u00df', E'ss'), E'\\u00e6', E'ae'), E'\\u0153', E'oe'), E'[\\u0009\\u000a\\u000b\\u000c\\u000d \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+', ' ', 'g'), NFC)",
                    (),
                ),
                help_text="The title as the console's searches compare it (case, accents, Unicode form and whitespace runs folded).",
                output_field=models.TextField(),
            ),
        ),
        # Statistics for the new columns (the owner runs migrations; ANALYZE needs it).
        migrations.RunSQL(
            "ANALYZE verifier_claim; ANALYZE verifier_source;", migrations.RunSQL.noop
        ),
    ]
