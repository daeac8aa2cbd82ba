"""``migrate`` as the owner role, then the runtime role's grants (config/database_roles.py)
and the review queue's ranks: claims whose stored ``queue_rank`` the order in force no
longer gives (a reason was added or moved) are re-ranked
(``verifier.services.claim_state.claims_queue_rank_sync``)."""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrateCommand

from config.database_roles import as_owner, grant_runtime_role


class Command(DjangoMigrateCommand):
    help = (
        DjangoMigrateCommand.help
        + " Connects as settings.DATABASE_OWNER and grants the runtime role afterwards;"
        " re-ranks the review queue's claims when its order changed."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        with as_owner(alias) as role:
            super().handle(*args, **options)
            if options.get("plan") or options.get("check_unapplied"):
                return
            if role:
                grant_runtime_role(alias=alias, role=role)
            self._rank_queue(alias, verbosity=options.get("verbosity", 1))

    def _rank_queue(self, alias: str, *, verbosity: int) -> None:
        from django.db import connections

        from verifier.services.claim_state import claims_queue_rank_sync

        if "verifier_claim" not in connections[alias].introspection.table_names():
            return  # migrated to a point before the claims table
        with connections[alias].cursor() as cursor:
            cursor.execute(
                "SELECT 1 FROM information_schema.columns "
                "WHERE table_name = 'verifier_claim' AND column_name = 'queue_rank' "
                "AND is_generated = 'NEVER'"
            )
            if cursor.fetchone() is None:
                return  # migrated back to before 0022: the rank is the database's
        ranked = claims_queue_rank_sync()
        if ranked and verbosity > 0:
            self.stdout.write(f"  Re-ranked {ranked} claims in the review queue's order.")
