from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.models import ApiScope
from verifier.selectors.workspaces import workspace_get
from verifier.services.workspaces import ApiKeyInputError, api_key_create


class Command(BaseCommand):
    help = "Create an API key for a workspace. The key is printed once; only its hash is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug")
        parser.add_argument("--name", default="cli", help="A label for the key")
        parser.add_argument(
            "--scope",
            choices=ApiScope.values,
            default=ApiScope.WRITE.value,
            help="read: GET endpoints, retrieve, graph; write (default): also sources, ingest "
            "jobs, claim verification, RAG audits, memory; admin: also webhooks",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["name"].strip():
            raise CommandError("--name must not be empty: it is how the key is told apart.")
        workspace = workspace_get(slug=options["workspace"])
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        try:
            # Scripts make keys by the same name again (rotation, benches); the key is
            # printed here, so no secret is lost: only the console refuses a taken name.
            created = api_key_create(
                workspace=workspace,
                name=options["name"],
                scope=options["scope"],
                unique_name=False,
            )
        except ApiKeyInputError as error:
            raise CommandError(error.message) from error
        self.stderr.write(
            f"API key {created.api_key.name!r} ({created.api_key.scope}) for workspace "
            f"{workspace.slug!r} "
            "(shown once; store it now):"
        )
        self.stdout.write(created.raw_key)
