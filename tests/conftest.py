from __future__ import annotations

import os

import pytest
from django.test import Client

from tests.factories import make_source, make_user, make_workspace

os.environ.setdefault("HF_HUB_OFFLINE", "1")


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
    """Rate-limit counters (API throttles) start from zero in every test: all test
    requests come from one address, so counts would otherwise leak between tests."""
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
