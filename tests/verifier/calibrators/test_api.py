"""``GET /connect/v1/calibrators``: the workspace's calibrators with their figures,
cursor-paginated, filtered, in the OpenAPI schema, scoped to the key's workspace."""

from __future__ import annotations

from tests.factories import make_user
from tests.verifier.api.conftest import client_for
from verifier.judges.heuristic import MODEL_ID as HEURISTIC
from verifier.services.judge_calibrators import judge_calibrator_activate, judge_calibrator_fit

URL = "/connect/v1/calibrators"


def test_the_calibrators_with_their_figures(reviewed, other_workspace):
    admin = make_user("ada-api", workspace=reviewed.workspace, role="admin")
    first = judge_calibrator_fit(workspace=reviewed.workspace).row
    judge_calibrator_activate(calibrator=first, actor=admin)
    second = judge_calibrator_fit(workspace=reviewed.workspace).row
    api = client_for(reviewed.workspace, scope="read")

    body = api.get(URL).json()
    assert [c["version"] for c in body["results"]] == [2, 1]
    latest = body["results"][0]
    assert latest["id"] == second.pk and latest["status"] == "proposed"
    assert latest["judge_model"] == HEURISTIC and latest["training_size"] == 50
    assert latest["supported"]["precision"] >= 0.88 and latest["supported"]["threshold"]
    assert latest["can_decide"] is True and latest["refusal"] == ""
    assert latest["with_calibrator"]["abstention"] < latest["judge_alone"]["abstention"]

    active = api.get(URL, {"status": "active"}).json()["results"]
    assert [(c["version"], c["status"]) for c in active] == [(1, "active")]
    assert active[0]["activated_at"] is not None
    page = api.get(URL, {"page_size": 1}).json()
    assert len(page["results"]) == 1 and page["next"]

    bad = api.get(URL, {"status": "dormant"})
    assert bad.status_code == 400
    assert set(bad.json()["error"]) == {"code", "message", "details"}
    assert client_for(other_workspace, scope="read").get(URL).json()["results"] == []


def test_the_schema_lists_the_calibrators(workspace):
    schema = client_for(workspace).get("/connect/v1/schema", HTTP_ACCEPT="application/json")
    schema = schema.json()
    assert "get" in schema["paths"][URL]
    assert "Calibrator" in schema["components"]["schemas"]
