"""Deploy-ready settings: CSP, HTTPS switches, the secret key, check --deploy."""

from __future__ import annotations

import os
import re
import secrets
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.secret_key import SECRET_KEY_FILE, embedded_secret_key, secret_key_from

BASE_DIR = Path(settings.BASE_DIR)
PRODUCTION_URL = "postgres://spanproof:pw@db.invalid:5432/spanproof"


def _run(code_or_args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "SPANPROOF_DATA"))
    }
    clean.update(SPANPROOF_DATA=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings", **env)
    return subprocess.run(
        [sys.executable, *code_or_args],
        cwd=BASE_DIR,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _production_env() -> dict[str, str]:
    return {
        "DATABASE_URL": PRODUCTION_URL,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "spanproof.example.com",
        "DJANGO_HTTPS": "1",
    }


def test_check_deploy_is_clean_with_the_production_variables(tmp_path):
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], tmp_path, **_production_env()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_https_variables_switch_on_hsts_secure_cookies_and_the_proxy_header(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SESSION_COOKIE_SECURE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER)"
    )
    result = _run(["-c", code], tmp_path, **_production_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == (
        "31536000 True True True True ('HTTP_X_FORWARDED_PROTO', 'https')"
    )


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    env = {k: v for k, v in _production_env().items() if k != "DJANGO_SECRET_KEY"}
    result = _run(["-c", "import django; django.setup()"], tmp_path, **env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_secret_key_rules(tmp_path):
    with pytest.raises(ImproperlyConfigured):
        secret_key_from({"DATABASE_URL": PRODUCTION_URL}, tmp_path)
    assert secret_key_from({"DJANGO_SECRET_KEY": "k" * 60}, tmp_path) == "k" * 60
    assert not (tmp_path / SECRET_KEY_FILE).exists()


def test_the_embedded_setup_generates_its_key_once(tmp_path):
    data = tmp_path / "data"
    key = secret_key_from({}, data)
    path = data / SECRET_KEY_FILE
    assert len(key) >= 50 and path.read_text().strip() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert embedded_secret_key(data) == key  # stable across restarts
    assert embedded_secret_key(tmp_path / "other") != key  # unique per installation
    assert "change-me" not in settings.SECRET_KEY


def test_console_pages_carry_a_strict_csp(client):
    response = client.get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if " " in d.strip())
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


def test_the_api_docs_page_keeps_the_strict_policy(admin_client_ws):
    """Swagger UI comes from the app's static files (issue 40.4): no CDN, nothing inline."""
    response = admin_client_ws.get("/connect/v1/docs")
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    assert "cdn.jsdelivr.net" not in policy and "unsafe-inline" not in policy
    assert "<script>" not in response.content.decode()  # init script served separately


TEMPLATES = sorted((BASE_DIR / "templates").rglob("*.html"))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(BASE_DIR)))
def test_templates_have_no_inline_script_style_or_handlers(template):
    text = template.read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline <script>"
    assert not re.search(r"<style\b", text), "inline <style>"
    assert not re.search(r"\son[a-z]+\s*=", text), "inline event handler"
    assert not re.search(r"\sstyle\s*=", text), "style attribute"
    assert "javascript:" not in text and "hx-on" not in text
