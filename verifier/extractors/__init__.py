"""Claim extractors: text → declarative claims with verbatim quotes. Import-safe without
Django."""

from verifier.extractors.base import ExtractedClaim, Extractor, check_families
from verifier.extractors.registry import (
    ExtractorConfigError,
    build_extractor,
    extractor_config_from_env,
)

__all__ = [
    "ExtractedClaim",
    "Extractor",
    "ExtractorConfigError",
    "build_extractor",
    "check_families",
    "extractor_config_from_env",
]
