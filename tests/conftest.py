from __future__ import annotations

import os

import pytest
from django.test import Client

from tests.factories import make_source, make_user, make_workspace

os.environ.setdefault("HF_HUB_OFFLINE", "1")


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
