from __future__ import annotations

import re

from django.conf import settings
from django.db import models

from verifier.models.workspaces import Workspace

_VERSIONED_NAME = re.compile(r"\bv\d+$")


class RuleSet(models.Model):
    """An immutable, versioned verification rule set. Built-ins have no workspace."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, null=True, blank=True, related_name="rule_sets"
    )
    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField()
    definition = models.JSONField(help_text="Dimensions, weights, thresholds and policies.")
    parent = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name", "version"], name="ruleset_unique_version"
            ),
            models.UniqueConstraint(
                fields=["name", "version"],
                condition=models.Q(workspace__isnull=True),
                name="ruleset_unique_builtin_version",
            ),
        ]

    def __str__(self) -> str:
        # "Core v1" already carries a version-like suffix: never "Core v1 v1".
        if _VERSIONED_NAME.search(self.name):
            return f"{self.name} (version {self.version})"
        return f"{self.name} v{self.version}"


class RuleSetActivation(models.Model):
    """Which rule set and policy a workspace uses for a domain pack ('' = all packs)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="activations")
    domain_pack = models.CharField(max_length=64, blank=True, default="")
    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="activations")
    policy = models.CharField(max_length=16, default="balanced")
    activated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    activated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-activated_at", "-id"]
        indexes = [models.Index(fields=["workspace", "domain_pack", "-activated_at"])]
