"""Webhooks cannot be aimed at the server's own network (SSRF)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.pipeline.conftest import DOC_A
from tests.verifier.pipeline.receiver import Receiver
from verifier.models import Webhook, WebhookDelivery
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.webhooks import WebhookInputError, webhook_create

SECRET = "s3cret-for-webhook-tests"


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.fixture
def run_job(django_capture_on_commit_callbacks):
    def run(workspace):
        with django_capture_on_commit_callbacks(execute=True):
            job = ingest_job_create(
                workspace=workspace, sources=[SourceUpload(ref="source:a", text=DOC_A)]
            )
        return job

    return run


def _register(api, url):
    body = {"url": url, "secret": SECRET, "events": ["job.completed"]}
    return api.post("/connect/v1/webhooks", body, content_type="application/json")


def test_an_internal_admin_address_is_refused_at_registration(api):
    with Receiver() as receiver:
        internal = receiver.url.replace("/hook", "/internal-admin")
        response = _register(api, internal)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "insecure_url"
    assert not Webhook.objects.exists()
    assert receiver.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/internal-admin",
        "https://localhost:8443/x",
        "https://[::1]/x",
        "https://[::ffff:127.0.0.1]/x",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.5/x",
        "https://[fd00::5]/x",
        "https://0.0.0.0/x",
        "https://224.0.0.1/x",
    ],
)
def test_internal_addresses_are_refused_even_over_https(api, settings, url):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    response = _register(api, url)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "address_not_allowed"
    assert not Webhook.objects.exists()


def test_an_unresolvable_host_is_refused(workspace):
    with pytest.raises(WebhookInputError) as err:
        webhook_create(
            workspace=workspace,
            url="https://no-such-host.invalid/h",
            secret=SECRET,
            events=["job.completed"],
        )
    assert err.value.code == "address_not_allowed"


def test_the_operator_allow_list_admits_a_local_receiver(api, settings, workspace, run_job):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    with Receiver() as receiver:
        assert _register(api, receiver.url).status_code == 201
        run_job(workspace)
    assert len(receiver.requests) == 1
    assert WebhookDelivery.objects.get().status == "delivered"


def test_the_address_is_checked_again_at_delivery(settings, workspace, run_job):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    with Receiver() as receiver:
        webhook_create(
            workspace=workspace, url=receiver.url, secret=SECRET, events=["job.completed"]
        )
        settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = []  # the operator withdrew it
        run_job(workspace)
    assert receiver.requests == []
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed"  # refused: not retried five times
    [attempt] = delivery.attempts.all()
    assert attempt.status_code is None and attempt.error.startswith("refused:")
    assert "loopback" in attempt.error


class _Server:
    """A local server whose handler the test supplies."""

    def __init__(self, handle):
        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.hits.append(self.path)
                handle(self)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_redirects_are_not_followed(settings, workspace, run_job):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    with Receiver() as internal:

        def redirect(handler):
            handler.send_response(307)
            handler.send_header("Location", internal.url.replace("/hook", "/internal-admin"))
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with _Server(redirect) as public:
            webhook_create(
                workspace=workspace, url=public.url, secret=SECRET, events=["job.completed"]
            )
            run_job(workspace)
    assert internal.requests == []
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed"
    assert {a.error for a in delivery.attempts.all()} == {"HTTP 307"}


def test_a_slow_receiver_times_out(settings, workspace, run_job):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.SPANPROOF_WEBHOOK_TIMEOUT = 0.2

    def slow(handler):
        time.sleep(1)

    with _Server(slow) as server:
        webhook_create(workspace=workspace, url=server.url, secret=SECRET, events=["job.completed"])
        started = time.monotonic()
        run_job(workspace)
        elapsed = time.monotonic() - started
    attempt = WebhookDelivery.objects.get().attempts.first()
    assert attempt.status_code is None and "Timeout" in attempt.error
    assert elapsed < 15


def test_a_huge_answer_is_not_read_to_the_end(settings, workspace, run_job):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    sent = []

    def huge(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(200 * 1024 * 1024))
        handler.end_headers()
        chunk = b"x" * 65536
        try:
            for _ in range(200 * 16):
                handler.wfile.write(chunk)
                sent.append(len(chunk))
        except OSError:
            pass

    with _Server(huge) as server:
        webhook_create(workspace=workspace, url=server.url, secret=SECRET, events=["job.completed"])
        run_job(workspace)
    assert WebhookDelivery.objects.get().status == "delivered"
    assert sum(sent) < 50 * 1024 * 1024


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("https://10.0.0.5/x", "The webhook URL's host 10.0.0.5 cannot be used: it is a private"),
        ("https://0.0.0.0/x", "host 0.0.0.0 cannot be used: it is an unspecified address"),
        (
            "https://no-such-host.invalid/x",
            "no-such-host.invalid cannot be used: its name does not resolve to any address",
        ),
    ],
)
def test_a_refused_host_is_said_in_words_and_names_the_url_field(api, url, says):
    error = _register(api, url).json()["error"]
    assert says in error["message"] and error["details"] == {"field": "url"}


# A public address (documentation ranges are not public; this one is, and is never
# contacted: registration only resolves an IP literal to itself).
PUBLIC = "93.184.215.14"


@pytest.mark.parametrize("port", [22, 25, 6379, 5432, 1, 65535])
def test_a_public_receiver_on_a_service_port_is_refused_naming_the_url_field(api, settings, port):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    response = _register(api, f"https://{PUBLIC}:{port}/hook")
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "port_not_allowed"
    assert error["details"] == {"field": "url"}
    assert f"port {port} is not one of the ports allowed (80, 443, 8080, 8443)" in error["message"]
    assert not Webhook.objects.exists()


def test_port_zero_is_refused_not_read_as_the_default(api, settings):
    """``https://host:0/`` was stored and sent to port 443."""
    settings.SPANPROOF_WEBHOOK_PORTS = frozenset({443})
    error = _register(api, f"https://{PUBLIC}:0/hook").json()["error"]
    assert (error["code"], error["details"]) == ("invalid_url", {"field": "url"})
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("url", [f"https://{PUBLIC}/hook", f"https://{PUBLIC}:8443/hook"])
def test_a_public_receiver_on_an_allowed_port_is_registered(api, url):
    response = _register(api, url)
    assert response.status_code == 201, response.json()
    assert Webhook.objects.get().url == url


def test_the_operator_chooses_the_ports(api, settings):
    settings.SPANPROOF_WEBHOOK_PORTS = frozenset({9443})
    assert _register(api, f"https://{PUBLIC}:9443/hook").status_code == 201
    refused = _register(api, f"https://{PUBLIC}/other").json()["error"]
    assert refused["code"] == "port_not_allowed" and "(9443)" in refused["message"]


def test_an_allow_listed_receiver_may_use_any_port(api, settings):
    """The operator's own network is admitted on any port, as its address is: the
    local receivers of the tests listen on a random one."""
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    assert _register(api, "https://10.20.0.7:9000/hook").status_code == 201


def test_the_port_is_checked_again_at_delivery(settings, workspace, run_job):
    """A receiver registered on a port the operator later takes off the list is not
    sent to: the delivery fails at once, refused, without a connection."""
    webhook_create(
        workspace=workspace,
        url=f"https://{PUBLIC}:8443/hook",
        secret=SECRET,
        events=["job.completed"],
    )
    settings.SPANPROOF_WEBHOOK_PORTS = frozenset({443})
    run_job(workspace)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed"
    attempt = delivery.attempts.get()
    assert attempt.error.startswith("refused: ") and "port 8443" in attempt.error
