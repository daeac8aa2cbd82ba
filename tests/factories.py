"""Small factories over the real models (no mocks of our own database)."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model
from django.db import connection

from verifier.models import (
    Claim,
    ClaimOrigin,
    EvidenceBinding,
    Membership,
    Source,
    SourceVersion,
    Workspace,
)
from verifier.services.sources import source_upsert

_seq = itertools.count(1)

DEFAULT_TEXT = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows. Salt marsh grasses trap silt at high tide."
)


def make_workspace(slug: str | None = None) -> Workspace:
    n = next(_seq)
    slug = slug or f"ws-{n}"
    return Workspace.objects.create(slug=slug, name=f"Workspace {slug}")


def make_user(
    username: str | None = None, *, workspace: Workspace | None = None, role: str | None = None
):
    user = get_user_model().objects.create_user(
        username=username or f"user{next(_seq)}", password="pw-for-tests-123"
    )
    if workspace is not None and role is not None:
        Membership.objects.create(workspace=workspace, user=user, role=role)
    return user


def make_source(
    workspace: Workspace, *, ref: str | None = None, text: str = DEFAULT_TEXT
) -> Source:
    return source_upsert(
        workspace=workspace, ref=ref or f"source:doc_{next(_seq)}", text=text, title="A document"
    ).source


def make_claim(
    source: Source, text: str = "Sediment settles where the current slows.", **kw
) -> Claim:
    return Claim.objects.create(
        workspace=source.workspace,
        source=source,
        text=text,
        original_text=text,
        origin=kw.pop("origin", ClaimOrigin.EXTRACTED),
        **kw,
    )


def make_binding(claim: Claim, quote: str, **kw) -> EvidenceBinding:
    version = claim.source.versions.order_by("-number").first()
    start = version.text.index(quote)
    return EvidenceBinding.objects.create(
        claim=claim,
        source_version=version,
        quote=quote,
        start=start,
        end=start + len(quote),
        source_hash=kw.pop("source_hash", version.sha256),
        match=kw.pop("match", "exact"),
        bound_by=kw.pop("bound_by", "quote"),
        **kw,
    )


def tamper(version: SourceVersion, new_text: str) -> None:
    """Rewrite a version's text behind the append-only triggers' back, its chunks (what
    the read-time re-check cuts spans from) with it."""
    with connection.cursor() as cursor:
        # Deferred FK checks from this test's inserts would block ALTER TABLE.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            "ALTER TABLE verifier_sourceversion DISABLE TRIGGER verifier_sourceversion_append_only"
        )
        cursor.execute(
            "ALTER TABLE verifier_sourceversionchunk "
            "DISABLE TRIGGER verifier_sourceversionchunk_append_only"
        )
        try:
            cursor.execute(
                "UPDATE verifier_sourceversion SET text = %s WHERE id = %s", [new_text, version.pk]
            )
            cursor.execute(
                "DELETE FROM verifier_sourceversionchunk WHERE version_id = %s", [version.pk]
            )
            cursor.execute(
                'INSERT INTO verifier_sourceversionchunk (version_id, "index", "text") '
                "SELECT %s, chunk_index, chunk_text FROM spanproof_text_chunks(%s)",
                [version.pk, new_text],
            )
        finally:
            cursor.execute(
                "ALTER TABLE verifier_sourceversion "
                "ENABLE TRIGGER verifier_sourceversion_append_only"
            )
            cursor.execute(
                "ALTER TABLE verifier_sourceversionchunk "
                "ENABLE TRIGGER verifier_sourceversionchunk_append_only"
            )
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def trace_committed(trace_id) -> bool:
    """Whether a second connection sees the trace ``trace_id``: committed rows only, for
    tests that run outside a transaction of their own (``transaction=True``)."""
    import psycopg

    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        row = other.execute(
            'SELECT 1 FROM "verifier_trace" WHERE "trace_id" = %s', [trace_id]
        ).fetchone()
    return row is not None
