from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.verifier.pipeline.conftest import run_job

__all__ = ["run_job", "runtime"]


def _runtime_params() -> dict:
    params = connection.get_connection_params()
    params.update(user=settings.DATABASE_RUNTIME_USER, autocommit=True)
    params.pop("password", None)
    if settings.DATABASES["default"].get("PASSWORD"):
        params["password"] = settings.DATABASES["default"]["PASSWORD"]
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    return params


@pytest.fixture
def runtime(transactional_db) -> Iterator[psycopg.Connection]:
    """A separate autocommit connection as the runtime role the app uses, on committed
    rows (the tests themselves run as the owner role)."""
    with psycopg.connect(**_runtime_params()) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (settings.DATABASE_RUNTIME_USER,)
        yield conn
