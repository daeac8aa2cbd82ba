"""How ``config/settings.py`` reads its environment: a value that cannot work stops
start-up with one ``ImproperlyConfigured`` line naming the variable and what it takes
(``manage.py`` prints that line alone, without a traceback), never a 500 on the first
request that uses it.

- ``SettingsEnv``: environs' reader, whose malformed number, switch or path is refused
  by name;
- ``database_settings``: a ``DATABASE_URL`` / ``DATABASE_OWNER_URL`` must be a PostgreSQL
  URL;
- ``judge_settings`` / ``extractor_settings``: the registries' readers, with the backend
  checked against the registry and a chat-completions backend's endpoint options checked
  (nothing is built or loaded);
- ``env_rate``: an API rate reads as ``<n>/<period>``;
- ``query_embedding_check``: ``SPANPROOF_QUERY_EMBED_*`` (read by ``verifier.embeddings``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from environs import Env, EnvError

from verifier.api.rates import RateError, parse_rate
from verifier.extractors import registry as extractors
from verifier.judges import registry as judges
from verifier.model_config import CHAT_BACKENDS, chat_endpoint_options

# what a variable read by each of environs' methods takes, in the refusal
_TAKES: dict[str, str] = {
    "int": "a whole number",
    "float": "a number",
    "bool": "a switch: 1/0, true/false, yes/no or on/off",
    "path": "a path",
    "str": "text",
}


class SettingsEnv(Env):
    """``environs.Env`` whose malformed value is an ``ImproperlyConfigured`` naming the
    variable, its value and what it takes (the methods are wrapped below)."""


def _refusing(method: str) -> Callable[..., Any]:
    read = getattr(Env, method)

    def checked(self: Env, name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return read(self, name, *args, **kwargs)
        except EnvError:
            raw = os.environ.get(name, "")
            raise ImproperlyConfigured(f"{name}={raw!r}: expected {_TAKES[method]}.") from None

    checked.__name__ = checked.__qualname__ = method
    checked.__doc__ = read.__doc__
    return checked


for _method in _TAKES:
    setattr(SettingsEnv, _method, _refusing(_method))

# dj-database-url's schemes that mean PostgreSQL (the app needs it, with pgvector)
POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")


def database_settings(variable: str, url: str, **options: Any) -> dict[str, Any]:
    """Django's ``DATABASES`` entry for a PostgreSQL URL; anything else is refused."""
    example = f"{variable}=postgres://user:password@host:5432/spanproof"
    scheme = urlsplit(url.strip()).scheme.lower() if "://" in url else ""
    if scheme not in POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            f"{variable} must be a PostgreSQL URL ({', '.join(s + '://' for s in POSTGRES_SCHEMES)}"
            f"), e.g. {example}; got {scheme + '://' if scheme else 'no scheme'}."
        )
    try:
        return dict(dj_database_url.parse(url.strip(), **options))
    except Exception as exc:  # dj-database-url raises bare ValueErrors and its own types
        raise ImproperlyConfigured(
            f"{variable} is not a valid URL ({type(exc).__name__}: {exc}); expected e.g. {example}."
        ) from None


def _model_settings(
    environ: Mapping[str, str],
    *,
    read: Callable[[Mapping[str, str]], dict[str, Any]],
    backends: Mapping[str, object],
    prefix: str,
    what: str,
    error: type[ValueError],
) -> dict[str, Any]:
    try:
        config = read(environ)
    except error as exc:
        raise ImproperlyConfigured(str(exc)) from None
    backend = str(config.get("backend") or "").lower()
    if backend not in backends:
        raise ImproperlyConfigured(
            f"{prefix}BACKEND={environ.get(prefix + 'BACKEND', '')!r}: unknown {what} "
            f"backend; expected one of {', '.join(sorted(backends))}."
        )
    if backend in CHAT_BACKENDS:
        try:
            chat_endpoint_options(config, what=what, prefix=prefix, error=error)
        except error as exc:
            raise ImproperlyConfigured(f"{prefix}BACKEND={backend}: {exc}") from None
    return config


def judge_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    """``SPANPROOF_JUDGE_*`` (``verifier.judges.registry``), checked."""
    return _model_settings(
        environ,
        read=judges.judge_config_from_env,
        backends=judges.BACKENDS,
        prefix=judges.ENV_PREFIX,
        what="judge",
        error=judges.JudgeConfigError,
    )


def extractor_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    """``SPANPROOF_EXTRACTOR_*`` (``verifier.extractors.registry``), checked."""
    return _model_settings(
        environ,
        read=extractors.extractor_config_from_env,
        backends=extractors.BACKENDS,
        prefix=extractors.ENV_PREFIX,
        what="extractor",
        error=extractors.ExtractorConfigError,
    )


def env_rate(name: str, default: str, *, environ: Mapping[str, str] = os.environ) -> str:
    """An API rate (``verifier.api.rates``) as written: checked here, parsed per request."""
    value = environ.get(name, default)
    try:
        parse_rate(value)
    except RateError as exc:
        raise ImproperlyConfigured(f"{name}={value!r}: {exc}.") from None
    return value


def query_embedding_check() -> None:
    """``verifier.embeddings`` reads ``SPANPROOF_QUERY_EMBED_BACKEND`` and ``_THREADS``
    when it is imported (every web and worker process imports it): import it now, so a bad
    value is refused here by name."""
    try:
        import verifier.embeddings  # noqa: F401
    except ValueError as exc:  # its own refusal, or environs' (a ValueError too)
        raise ImproperlyConfigured(str(exc)) from None
