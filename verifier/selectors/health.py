"""What /healthz reports: database, pgvector, broker, embedding model."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection

from verifier import embeddings


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            (version,) = cursor.fetchone()
        return {"ok": True, "version": version.split(" on ")[0]}
    except Exception as exc:
        return {"ok": False, "error": str(exc)}


def _pgvector() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
        if row is None:
            return {"ok": False, "error": "extension 'vector' is not installed"}
        return {"ok": True, "version": row[0]}
    except Exception as exc:
        return {"ok": False, "error": str(exc)}


def _broker() -> dict[str, Any]:
    from config.celery import app

    url = settings.CELERY_BROKER_URL
    transport = url.split("://", 1)[0]
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "transport": transport}
    except Exception as exc:
        return {"ok": False, "transport": transport, "error": str(exc)}


def _embedding_model() -> dict[str, Any]:
    try:
        model = embeddings.get_model()
        dims = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )()
        return {"ok": True, "model": embeddings.EMBEDDING_MODEL_NAME, "dimensions": dims}
    except embeddings.EmbeddingUnavailable as exc:
        return {"ok": False, "model": embeddings.EMBEDDING_MODEL_NAME, "error": str(exc)}


def health_report() -> dict[str, Any]:
    checks = {
        "database": _database(),
        "pgvector": _pgvector(),
        "broker": _broker(),
        "embedding_model": _embedding_model(),
    }
    return {"ok": all(c["ok"] for c in checks.values()), "checks": checks}
