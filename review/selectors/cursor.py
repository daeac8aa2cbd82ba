"""The queue's order as a keyset: a claim's sort key, and the keys of one page of it,
read from the index ``claim_queue_keyset`` (migration 0016); and blind review's order,
oldest first (:class:`BlindCursor`), which tells nothing of what the judge answered."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.crypto import salted_hmac

from verifier.models import Claim
from verifier.selectors.paging import NewestFirstCursor, datetime_of, int_parts, micros_of

# A cursor type of one of the keyset orders below.
K = TypeVar("K")


@dataclass(frozen=True)
class QueueCursor:
    """A position in the queue order: the sort key of one claim.

    In the query string as ``rank.dependents.created-at-in-µs.id`` (``after=`` the
    last row of a page for the next page, ``before=`` the first for the previous)."""

    rank: int
    dependents: int
    created_at: datetime
    id: int

    @property
    def token(self) -> str:
        return f"{self.rank}.{self.dependents}.{micros_of(self.created_at)}.{self.id}"

    @classmethod
    def parse(cls, token: str | None) -> QueueCursor | None:
        """The cursor in ``token``; None for a missing or malformed one."""
        parts = int_parts(token, 4)
        if parts is None:
            return None
        rank, dependents, micros, pk = parts
        at = datetime_of(micros)
        return None if at is None else cls(rank, dependents, at, pk)


# A position in blind review's order, oldest first: ``(created_at, id)``, the key (and
# token) of every list ordered by creation, read the other way round.
#
# The risk order leads with the queue rank, the rank of the claim's reason: what the
# judge answered (a contradiction first, then a disagreement, ...). Listed and served in
# that order, a blind reviewer would read the judge's answer from a claim's place (the
# first rows are the contradictions). Blind review lists and serves oldest first
# instead: nothing in the order, nor in this key, comes from a verdict.
BlindCursor = NewestFirstCursor


# A blind cursor token longer than this is no token of ours (one is ~120 characters).
BLIND_TOKEN_MAX_CHARS = 400


@lru_cache(maxsize=4)
def _blind_fernet(secret: str) -> Fernet:
    key = salted_hmac("review.blind_cursor", "fernet key", secret=secret, algorithm="sha256")
    return Fernet(base64.urlsafe_b64encode(key.digest()))


def blind_cursor_token(cursor: BlindCursor) -> str:
    """``cursor`` sealed for blind review's page links: its token encrypted (Fernet,
    keyed by ``SECRET_KEY``), so a link tells nothing of the claim next to the page
    (its row id included), and a risk-order token (whose queue rank would tell the
    judge's answer) is never one of blind review's. The server reads the same position
    back (:func:`blind_cursor_parse`)."""
    return _blind_fernet(settings.SECRET_KEY).encrypt(cursor.token.encode()).decode("ascii")


def blind_cursor_parse(token: str | None) -> BlindCursor | None:
    """The cursor sealed in ``token`` by :func:`blind_cursor_token`; None for a missing,
    malformed or foreign one (a plain token included: the page is then the first)."""
    if not token or len(token) > BLIND_TOKEN_MAX_CHARS:
        return None
    try:
        plain = _blind_fernet(settings.SECRET_KEY).decrypt(token.encode("ascii"))
    except (InvalidToken, UnicodeError, ValueError):
        return None
    return BlindCursor.parse(plain.decode("ascii", errors="replace"))


# The queue order as SQL, matching the index ``claim_queue_keyset`` (migration 0016):
# (workspace_id, queue_rank, (-dependents), created_at, id), partial on queued states.
_QUEUE_KEY = (
    '"verifier_claim"."queue_rank"',
    '(-"verifier_claim"."dependents")',
    '"verifier_claim"."created_at"',
    '"verifier_claim"."id"',
)


def review_queue_keyset(
    queryset: QuerySet[Claim],
    *,
    limit: int,
    after: QueueCursor | None = None,
    before: QueueCursor | None = None,
    offset: int = 0,
) -> list[QueueCursor]:
    """The sort keys of up to ``limit`` claims of ``queryset`` in queue order, after
    ``after`` (or the last ones before ``before``, still in queue order).

    One index range scan of ``claim_queue_keyset`` whatever the page: the cursor is a
    row comparison on the index's columns, so no page reads the rows before it.
    ``offset`` (only for old ``?page=N`` links) skips rows after the cursor. A claim
    whose key changes between two pages (its reason, a new relation) moves in the
    order, so it may show on two pages or on none; every other claim shows once.
    """
    return _keyset(
        queryset,
        key=_QUEUE_KEY,
        bound=lambda c: [c.rank, -c.dependents, c.created_at, c.id],
        fields=("queue_rank", "dependents", "created_at", "id"),
        make=QueueCursor,
        limit=limit,
        after=after,
        before=before,
        offset=offset,
    )


def _keyset(
    queryset: QuerySet[Claim],
    *,
    key: tuple[str, ...],
    bound: Callable[[K], list[Any]],
    fields: tuple[str, ...],
    make: Callable[..., K],
    limit: int,
    after: K | None,
    before: K | None,
    offset: int,
) -> list[K]:
    """Up to ``limit`` cursors (``make`` of each row's ``fields``) of ``queryset`` in the
    order of the SQL expressions ``key``, after ``after`` (or the last ones before
    ``before``, still in that order): a row comparison of ``key`` with the cursor's
    ``bound`` values, so no page reads the rows before it."""
    queryset = queryset.order_by()
    cursor = after or before
    if cursor is not None:
        op = ">" if before is None else "<"
        marks = ", ".join(["%s"] * len(key))
        queryset = queryset.filter(
            RawSQL(
                f"({', '.join(key)}) {op} ({marks})",
                bound(cursor),
                output_field=BooleanField(),
            )
        )
    backward = before is not None
    order = [RawSQL(k, []).desc() if backward else RawSQL(k, []).asc() for k in key]
    rows = queryset.order_by(*order).values_list(*fields)
    keys = [make(*row) for row in rows[offset : offset + limit]]
    return keys[::-1] if backward else keys


# Blind review's order as SQL: oldest first, as the index ``claim_ws_created``
# (workspace, created_at, id) reads it.
_BLIND_KEY = ('"verifier_claim"."created_at"', '"verifier_claim"."id"')


def review_blind_queue_keyset(
    queryset: QuerySet[Claim],
    *,
    limit: int,
    after: BlindCursor | None = None,
    before: BlindCursor | None = None,
    offset: int = 0,
) -> list[BlindCursor]:
    """:func:`review_queue_keyset` in blind review's order (:class:`BlindCursor`):
    the keys of up to ``limit`` claims of ``queryset`` oldest first, after ``after``
    (or the last ones before ``before``, still oldest first). A claim's key never
    changes, so paging shows every claim the filter keeps once."""
    return _keyset(
        queryset,
        key=_BLIND_KEY,
        bound=lambda c: [c.created_at, c.id],
        fields=("created_at", "id"),
        make=BlindCursor,
        limit=limit,
        after=after,
        before=before,
        offset=offset,
    )


def review_queue_ordered_ids(
    *, queryset: QuerySet[Claim], limit: int, blind: bool = False
) -> list[int]:
    """Primary keys of the first ``limit`` claims of ``queryset`` in queue order (in
    blind review, ``blind``, oldest first: :class:`BlindCursor`)."""
    if blind:
        return [key.id for key in review_blind_queue_keyset(queryset, limit=limit)]
    return [key.id for key in review_queue_keyset(queryset, limit=limit)]
