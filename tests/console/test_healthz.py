from django.test import Client


def test_healthz_reports_every_dependency(db):
    response = Client().get("/healthz")
    body = response.json()
    assert set(body["checks"]) == {
        "database",
        "pgvector",
        "broker",
        "embedding_model",
        "ingest_jobs",
        "verification_jobs",
        "audit_pack_jobs",
        "calibrator_change_jobs",
        "review_rejudge_jobs",
        "workers",
    }
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["pgvector"]["ok"] is True
    assert body["checks"]["pgvector"]["version"].startswith("0.8")
    assert body["checks"]["embedding_model"]["ok"] is True
    assert body["checks"]["embedding_model"]["dimensions"] == 384
    assert response.status_code == (200 if body["ok"] else 503)


def test_healthz_fails_when_the_broker_is_unreachable(db, settings):
    from config.celery import app

    old = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        app.conf.broker_url = old
    assert response.status_code == 503
    assert response.json()["checks"]["broker"]["ok"] is False
