import pytest
import yaml
from django.conf import settings
from django.test import Client

from tests.factories import make_user

CONSOLE_PAGES = ["/", "/review/", "/audit/claims/", "/audit/sources/"]


@pytest.mark.parametrize("path", CONSOLE_PAGES)
def test_anonymous_users_are_sent_to_login(db, path):
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize("path", CONSOLE_PAGES[1:])
def test_signed_in_user_without_membership_gets_403(db, client, path):
    client.force_login(make_user("outsider"))
    response = client.get(path)
    assert response.status_code == 403
    assert b"Not allowed" in response.content


@pytest.mark.parametrize("path", CONSOLE_PAGES)
@pytest.mark.parametrize("fixture", ["reviewer_client", "auditor_client", "admin_client_ws"])
def test_every_role_reads_console_pages(request, path, fixture):
    client = request.getfixturevalue(fixture)
    response = client.get(path)
    assert response.status_code == 200


def test_navigation_is_role_aware(reviewer_client, admin_client_ws):
    assert b'href="/audit/rules/"' not in reviewer_client.get("/").content
    assert b'href="/audit/rules/"' in admin_client_ws.get("/").content


def test_helpful_404_page(reviewer_client):
    response = reviewer_client.get("/audit/claims/claim:doesnotexist/")
    assert response.status_code == 404
    assert b"nothing at" in response.content
    assert b"/audit/claims/claim:doesnotexist/" in response.content


def test_htmx_is_served_from_static_not_a_cdn(reviewer_client):
    html = reviewer_client.get("/").content.decode()
    assert "/static/django_htmx/htmx" in html
    assert "unpkg" not in html and "cdn" not in html.lower()
    assert 'hx-headers=\'{"X-CSRFToken"' in html


def test_login_logout_round_trip(reviewer):
    client = Client()
    response = client.post("/accounts/login/", {"username": "rita", "password": "pw-for-tests-123"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/").status_code == 302


def test_docker_compose_describes_the_production_stack():
    with open(settings.BASE_DIR / "docker-compose.yml") as handle:
        compose = yaml.safe_load(handle)
    assert {"db", "redis", "web", "worker", "beat"} <= set(compose["services"])
    assert "pgvector" in compose["services"]["db"]["image"]
    assert "gunicorn" in compose["services"]["web"]["command"]
