"""``migrate`` as the owner role, then the runtime role's grants (config/database_roles.py),
the claims with no span bound that an earlier state rule read as ``abstained``
(``claims_unbound_restate``, after a full migrate only), and the review queue's ranks:
claims whose stored
``queue_rank`` the order in force no longer gives (a reason was added or moved) are re-ranked
(``verifier.services.claim_state.claims_queue_rank_sync``). After re-ranking (or the
migration that ranked every claim, 0022) the claims table is vacuumed and analysed:
the re-ranked rows' old versions otherwise keep the queue's index-only counts reading
the table until autovacuum comes (the queue page at 100,000 claims: 70 ms instead of
22 ms in the meantime)."""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrateCommand

from config.database_roles import as_owner, grant_runtime_role

RANKING_MIGRATION = ("verifier", "0028_claim_queue_rank_plain")


class Command(DjangoMigrateCommand):
    help = (
        DjangoMigrateCommand.help
        + " Connects as settings.DATABASE_OWNER and grants the runtime role afterwards;"
        " re-ranks the review queue's claims when its order changed."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        self._applied: set[tuple[str, str]] = set()
        with as_owner(alias) as role:
            super().handle(*args, **options)
            if options.get("plan") or options.get("check_unapplied"):
                return
            if role:
                grant_runtime_role(alias=alias, role=role)
            self._rank_queue(alias, verbosity=options.get("verbosity", 1))
            if not options.get("migration_name"):  # the models match the tables
                self._restate_unbound(alias, verbosity=options.get("verbosity", 1))

    def migration_progress_callback(
        self, action: str, migration: Any = None, fake: bool = False
    ) -> None:
        if action == "apply_success" and migration is not None and not fake:
            self._applied.add((migration.app_label, migration.name))
        super().migration_progress_callback(action, migration, fake)

    def _restate_unbound(self, alias: str, *, verbosity: int) -> None:
        from django.db import connections

        from verifier.services.claim_state import claims_unbound_restate

        if "verifier_stateevent" not in connections[alias].introspection.table_names():
            return  # no claims yet
        restated = claims_unbound_restate()
        if restated and verbosity > 0:
            self.stdout.write(f"  Re-resolved {restated} claims with no span bound (no_evidence).")

    def _rank_queue(self, alias: str, *, verbosity: int) -> None:
        from django.db import connections

        from verifier.services.claim_state import claims_queue_rank_sync

        connection = connections[alias]
        if "verifier_claim" not in connection.introspection.table_names():
            return  # migrated to a point before the claims table
        with connection.cursor() as cursor:
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
        if ranked or RANKING_MIGRATION in self._applied:
            # VACUUM cannot run in a transaction (a caller's atomic block): ANALYZE then.
            statement = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
            with connection.cursor() as cursor:
                cursor.execute(f"{statement} verifier_claim")
