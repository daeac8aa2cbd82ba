"""Export an audit pack: a workspace's claims (or one source's) with their evidence and
history, signed, checkable with the check.py inside it (docs/audit-pack.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.http import Http404

from verifier.api.audit_pack import AuditPackScopeSerializer, pack_scope
from verifier.audit_pack.scope import AuditPackError
from verifier.selectors.workspaces import workspace_get
from verifier.services.audit_pack import audit_pack_write


class Command(BaseCommand):
    help = (
        "Export a signed audit pack of a workspace's claims (all, or one source's) into a "
        "zip that python3 check.py checks with nothing else installed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug")
        parser.add_argument("--source", default="", help="Only the claims citing this source ref")
        parser.add_argument("--trace", default="", help="Only the claims this trace considered")
        parser.add_argument("--state", default="", help="Only claims in this state")
        parser.add_argument("--out", required=True, help="The .zip to write")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = workspace_get(slug=options["workspace"])
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        if options["source"]:
            params = {"scope": "source", "source": options["source"]}
        elif options["trace"]:
            params = {"scope": "trace", "trace": options["trace"]}
        else:
            params = {"scope": "claims", "state": options["state"]}
        try:
            # The API's rule for a pack's scope (and the console's): a state, a trace id
            # or a field no claim list knows is refused by name, never a 0-claim pack.
            scope = pack_scope(
                AuditPackScopeSerializer, {k: v.strip() for k, v in params.items() if v.strip()}
            )
        except AuditPackError as exc:
            raise CommandError(exc.message) from exc
        out = Path(options["out"])
        if not out.parent.is_dir():
            raise CommandError(f"--out {out}: the folder {out.parent} does not exist.")
        if out.is_dir():
            raise CommandError(f"--out {out} is a folder: name the .zip to write.")
        partial = out.with_name(out.name + ".part")

        def progress(done: int, total: int) -> None:
            sys.stderr.write(f"\r{done:,} / {total:,} claims")

        try:
            sink_file = partial.open("wb")
        except OSError as exc:  # not writable, no space, ...
            raise CommandError(f"--out {out}: cannot write there ({exc.strerror}).") from None
        try:
            with sink_file as sink:
                result = audit_pack_write(
                    workspace=workspace,
                    scope=scope,
                    sink=sink,
                    exported_by={"agent": "manage.py audit_pack"},
                    on_progress=progress if options["verbosity"] > 1 else None,
                )
        except Http404 as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(str(exc)) from exc
        except OSError as exc:  # the disk filled up, the folder went away, ...
            partial.unlink(missing_ok=True)
            raise CommandError(f"--out {out}: writing failed ({exc.strerror or exc}).") from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        partial.replace(out)
        self.stdout.write(
            f"Wrote {out} ({out.stat().st_size:,} bytes): {result.claims:,} claims of "
            f"{workspace.slug} ({scope.label}), signed with key id {result.key_id}. "
            f"Check it with: {sys.executable} -m verifier.audit_pack.check {out} (or the "
            "check.py inside it, with a checker you trust: docs/audit-pack.md)"
        )
