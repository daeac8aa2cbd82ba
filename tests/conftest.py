from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest
from django.test import Client

from tests.factories import make_source, make_user, make_workspace

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# One intra-op thread for torch (read when torch is first imported, which is later: no app
# imports it at start-up). On a 2-core machine shared with other work, torch's pool of two
# stalls on the busy core: encoding the 80 claims of a calibrator workspace took 4-5 s of
# wall time with two threads and 1.1-1.4 s with one, with the same vectors (max difference
# 0.0). Tests that size the pool set it themselves (tests/verifier/pipeline/
# test_worker_threads.py); SPANPROOF_WORKER_THREADS still decides in a worker.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """The test database is created, migrated and flushed by the owner role (the
    runtime role may not CREATE DATABASE or TRUNCATE); tests run as it too.
    ``tests/security/test_append_only_db.py`` connects as the runtime role."""
    from django.conf import settings
    from django.db import connections

    if settings.DATABASE_OWNER:
        connections["default"].close()
        connections["default"].settings_dict.update(settings.DATABASE_OWNER)


@pytest.fixture(scope="session", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    """Every test user gets a password (``make_user``), and Django's PBKDF2 spends a
    million iterations on each: about half a CPU second, so a list paged by fifty cost
    half a minute to fill. Tests hash with MD5 instead (sign-in still checks the password
    for real); the production hashers stay listed after it, so a stored PBKDF2 hash still
    verifies. Only this process: a server started as a subprocess keeps the settings'
    hashers and would not know an MD5 hash (none of them signs in with a password)."""
    from django.conf import settings
    from django.test import override_settings

    with override_settings(
        PASSWORD_HASHERS=[
            "django.contrib.auth.hashers.MD5PasswordHasher",
            *settings.PASSWORD_HASHERS,
        ]
    ):
        yield


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    """Tasks run in-process (real task code) unless a test starts a real worker."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.CELERY_TASK_EAGER_PROPAGATES = True
    from config.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The default cache starts empty in every test. (The API's rate-limit counters live
    in the database, ``RateCounter``, which each test rolls back or flushes.)"""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture
def workspace(db):
    return make_workspace("acme")


@pytest.fixture
def other_workspace(db):
    return make_workspace("globex")


@pytest.fixture
def reviewer(workspace):
    return make_user("rita", workspace=workspace, role="reviewer")


@pytest.fixture
def auditor(workspace):
    return make_user("aldo", workspace=workspace, role="auditor")


@pytest.fixture
def admin_user(workspace):
    return make_user("ada", workspace=workspace, role="admin")


@pytest.fixture
def source(workspace):
    return make_source(workspace, ref="source:marrow_delta")


def _login(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviewer_client(reviewer):
    return _login(reviewer)


@pytest.fixture
def auditor_client(auditor):
    return _login(auditor)


@pytest.fixture
def admin_client_ws(admin_user):
    return _login(admin_user)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def unreachable_judge(settings):
    """The judge an OpenAI-compatible endpoint on a port nobody listens on: every call a
    transport error (a coverage gap)."""
    settings.SPANPROOF_JUDGE = {
        **settings.SPANPROOF_JUDGE,
        "backend": "openai",
        "base_url": f"http://127.0.0.1:{_closed_port()}/v1",
        "model": "llama-3-judge",
        "family": "llama",
        "timeout": 1.0,
    }
