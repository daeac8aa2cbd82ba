from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand

from verifier.demo.loader import DEMO_PASSWORD, DEMO_USERS, load_demo


class Command(BaseCommand):
    help = "Create the demo workspace (slug 'demo') idempotently, through the real chain."

    def handle(self, *args: Any, **options: Any) -> None:
        report = load_demo()
        counts = Counter(report.states.values())
        summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        self.stdout.write(
            f"Demo workspace '{report.workspace.slug}': {report.created_sources} new sources, "
            f"{report.created_claims} new claims; claims now: {summary}."
        )
        for line in report.surprises:
            self.stdout.write(self.style.WARNING(f"  note: {line}"))
        logins = ", ".join(f"{name} ({role})" for name, role in DEMO_USERS)
        self.stdout.write(self.style.SUCCESS(f"Demo logins: {logins}; password '{DEMO_PASSWORD}'."))
