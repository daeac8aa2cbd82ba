"""Serializers of the dicts our builders make (the envelope, a claims/verify result):
a key the builder produces that the serializer does not declare is an error, never
silently dropped from the answer (DRF's ``Serializer`` drops it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework import serializers


# A ``Serializer`` that declares every key of the dict it serializes: an undeclared key
# raises ``ImproperlyConfigured`` (a builder and its serializer out of step is a bug to
# see in the tests, not a field to lose). No docstring: drf-spectacular would give it to
# every component built on it that has none of its own as its description.
class ShapeSerializer(serializers.Serializer[Any]):
    def to_representation(self, instance: Any) -> dict[str, Any]:
        if isinstance(instance, Mapping):
            undeclared = instance.keys() - self.fields.keys()
            if undeclared:
                raise ImproperlyConfigured(
                    f"{type(self).__name__} does not declare {sorted(undeclared)}, "
                    "which its builder produces."
                )
        representation: dict[str, Any] = super().to_representation(instance)
        return representation
