"""A source's ref in one Unicode form: NFC (``verifier.untrusted_input.canonical_ref``).

Before, the API doors stored a ref as it was sent, so ``source:café`` written with a
composed ``é`` (U+00E9) and with ``e`` + U+0301 were two sources, and a claim citing the
other spelling of a ref a person reads as the same was an unknown source. The ref column
becomes ``SourceRefField`` (no change to the table): a save stores the ref in NFC and a
lookup by ref brings the ref asked for to NFC, at every door.

Data: each stored ref not in NFC is rewritten in NFC; only the ref changes, never a
version's text, hash or offsets, nor the ref a trace, a job's payload or an audit pack
recorded. A ref is left as it is when its NFC form is already another source's ref in
the same workspace (or another stored ref of it composes to the same one): those
sources are two, each with its own versions and claims, and neither is merged into the
other or renamed. Each such ref is logged as a warning naming the workspace, the
sources' ids and the ref with its code points escaped; a lookup by either spelling
finds the NFC one, and the other stays on the console's lists (docs/operations.md,
"Upgrading").
"""

import logging
import unicodedata
from collections import defaultdict
from typing import Any

from django.db import migrations

import verifier.models.sources

logger = logging.getLogger(__name__)

REF_MAX_CHARS = 200  # the column's length


def refs_to_nfc(apps: Any, schema_editor: Any) -> None:
    source = apps.get_model("verifier", "Source")
    # an ASCII ref is in NFC: read only the others
    rows = source.objects.filter(ref__regex=r"[^\u0001-\u007f]").values_list(
        "pk", "workspace_id", "ref"
    )
    wanted: dict[tuple[int, str], list[tuple[int, str]]] = defaultdict(list)
    for pk, workspace_id, ref in rows.order_by("pk"):
        if not unicodedata.is_normalized("NFC", ref):
            wanted[(workspace_id, unicodedata.normalize("NFC", ref))].append((pk, ref))
    for (workspace_id, nfc), named in wanted.items():
        twin = source.objects.filter(workspace_id=workspace_id, ref=nfc).first()
        if twin is not None:
            why = f"is the ref of source {twin.pk}"
        elif len(named) > 1:
            why = "is the NFC form of each of them"
        elif len(nfc) > REF_MAX_CHARS:
            why = f"is longer than {REF_MAX_CHARS} characters"
        else:
            source.objects.filter(pk=named[0][0]).update(ref=nfc)
            continue
        logger.warning(
            "Source ref left as it was (not NFC): workspace %s, source %s, ref %s; its NFC "
            "form %s %s (docs/operations.md, Upgrading).",
            workspace_id,
            ", ".join(str(pk) for pk, _ in named),
            " / ".join(ascii(ref) for _, ref in named),
            ascii(nfc),
            why,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0040_search_folded_columns"),
    ]

    operations = [
        migrations.RunPython(refs_to_nfc, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="source",
            name="ref",
            field=verifier.models.sources.SourceRefField(
                help_text="Stable reference, e.g. source:nicomachean_ethics", max_length=200
            ),
        ),
    ]
