"""``migrate`` as the owner role, then the runtime role's grants (config/database_roles.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrateCommand

from config.database_roles import as_owner, grant_runtime_role


class Command(DjangoMigrateCommand):
    help = (
        DjangoMigrateCommand.help
        + " Connects as settings.DATABASE_OWNER and grants the runtime role afterwards."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        with as_owner(alias) as role:
            super().handle(*args, **options)
            if role and not options.get("plan") and not options.get("check_unapplied"):
                grant_runtime_role(alias=alias, role=role)
