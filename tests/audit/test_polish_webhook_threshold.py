"""The webhooks table shows a threshold only for a webhook that the below-threshold event
is sent to: for the others a threshold (the default 90) means nothing."""

from __future__ import annotations

import pytest

from verifier.services.webhooks import webhook_create

pytestmark = pytest.mark.django_db
PAGE = "/audit/webhooks/"
SECRET = "s3cret-for-the-console"


@pytest.fixture(autouse=True)
def local_receivers(settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


def _threshold_cell(page: str, url: str) -> str:
    """The third cell of the webhook's row (URL, events, threshold)."""
    row = page.split(f"<code>{url}</code>")[1].split("</tr>")[0]
    return row.split("<td>")[2].split("</td>")[0]


def test_the_threshold_shows_only_where_the_below_threshold_event_is_sent(
    admin_client_ws, workspace
):
    webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/done",
        secret=SECRET,
        events=["job.completed"],
    )
    webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/low",
        secret=SECRET,
        events=["job.quality_below_threshold"],
        threshold=75,
    )
    page = admin_client_ws.get(PAGE).content.decode()
    done = _threshold_cell(page, "http://127.0.0.1:9/done")
    assert "90" not in done and "—" in done
    assert "none: not subscribed to “Quality below the bar”" in done
    assert _threshold_cell(page, "http://127.0.0.1:9/low") == "below 75"
