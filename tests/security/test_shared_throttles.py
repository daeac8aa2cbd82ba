"""Throttling that holds: failed API authentication is counted and throttled per client
address, and the counters live where every web process sees them (the database by
default, Redis with ``SPANPROOF_CACHE_URL``), so two server processes allow a limit once,
not once each."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tests.verifier.api.conftest import key_for
from tests.verifier.commands.test_run_console_server import _free_port
from tests.verifier.pipeline.conftest import REDIS_URL, skip_unless_redis
from verifier.services.rate_counters import rate_counter_hit
from verifier.web_server import gunicorn_command

# Windows of an hour or a day: a test never straddles one (the counts would restart).
HOURLY = 3600


def _bearer(key: str, address: str = "127.0.0.1") -> Client:
    return Client(headers={"Authorization": f"Bearer {key}"}, REMOTE_ADDR=address)


def test_failed_authentication_is_throttled_per_address(workspace, settings):
    settings.SPANPROOF_API_AUTH_FAILURES_PER_IP = "5/hour"
    statuses = [
        _bearer(f"sp_wrong{i:02d}").get("/connect/v1/workspace").status_code for i in range(8)
    ]
    assert statuses == [401] * 5 + [429] * 3
    refused = _bearer("sp_wrong99").get("/connect/v1/workspace")
    assert refused.json()["error"]["code"] == "throttled"
    assert refused.json()["error"]["details"]["limit"] == "auth_failures"
    assert "failed authentications per client address" in refused.json()["error"]["message"]
    assert 0 < int(refused["Retry-After"]) <= HOURLY
    # a malformed header counts as a failure too; another address has its own budget
    assert _bearer("a b", "203.0.113.5").get("/connect/v1/workspace").status_code == 401
    assert _bearer("sp_wrong", "203.0.113.5").get("/connect/v1/workspace").status_code == 401
    # the throttled address is refused before any key is looked up, a valid one included
    valid = key_for(workspace)
    assert _bearer(valid).get("/connect/v1/workspace").status_code == 429
    assert _bearer(valid, "203.0.113.6").get("/connect/v1/workspace").status_code == 200


def test_successful_requests_do_not_count_as_failures(workspace, settings):
    settings.SPANPROOF_API_AUTH_FAILURES_PER_IP = "2/hour"
    api = _bearer(key_for(workspace))
    assert {api.get("/connect/v1/workspace").status_code for _ in range(5)} == {200}


def test_counters_are_atomic_in_the_database(db):
    now = time.time()
    assert [rate_counter_hit(key="t:a", period=HOURLY, now=now) for _ in range(3)] == [1, 2, 3]
    # a new window starts again at one
    assert rate_counter_hit(key="t:a", period=HOURLY, now=now + HOURLY) == 1


@pytest.mark.broker
def test_counters_in_redis_when_a_cache_url_is_set(db, settings):
    skip_unless_redis()
    settings.SPANPROOF_CACHE_URL = REDIS_URL
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
    key = f"t:{time.time_ns()}"
    now = time.time()
    assert [rate_counter_hit(key=key, period=HOURLY, now=now) for _ in range(3)] == [1, 2, 3]
    from verifier.models import RateCounter

    assert not RateCounter.objects.exists()


def _server(port: int, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        gunicorn_command(python=sys.executable, addr=f"127.0.0.1:{port}", workers=1, threads=1),
        cwd=settings.BASE_DIR,
        env=env,
    )


def _status(url: str, key: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _wait_up(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and server.poll() is None:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=60)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"server on {port} did not start")


@pytest.mark.django_db(transaction=True)
def test_the_key_limit_holds_across_two_server_processes(workspace):
    key = key_for(workspace, "read")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgresql://{db['USER']}:{db['PASSWORD'] or ''}@{quote(db['HOST'], safe='')}"
            f":{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "DJANGO_SECRET_KEY": "test-only-" + "x" * 40,
        "SPANPROOF_API_RATE_PER_KEY": "4/day",
        "SPANPROOF_API_RATE_PER_IP": "",
    }
    env.pop("SPANPROOF_CACHE_URL", None)
    ports = [_free_port(), _free_port()]
    servers = [_server(port, env) for port in ports]
    try:
        for port, server in zip(ports, servers, strict=True):
            _wait_up(port, server)
        statuses = [
            _status(f"http://127.0.0.1:{ports[i % 2]}/connect/v1/workspace", key) for i in range(10)
        ]
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=20)
    assert statuses.count(200) == 4, statuses
    assert statuses[4:] == [429] * 6
