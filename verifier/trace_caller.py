"""Who made a call: the API key or the signed-in member a trace records as its caller.

An auditor walking a trace back asks which application or person made the call. The
doors that write traces (retrieve, graph, ``/worker/verify``, claims/verify, RAG audits,
memory checks) run inside one request, deep below the view that knows who is calling, so
the caller travels in a context variable: ``CallerMiddleware`` sets it for each request
(the signed-in member, or nobody) and puts back what was there before when the request
ends; the API's key authentication replaces it with the key once the key is known. A
call made outside a request (a task, a management command) records no caller.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse


@dataclass(frozen=True)
class Caller:
    """``kind`` ``api_key``: ``name`` is the key's name, ``key_prefix`` its first
    characters (never the key); ``member``: ``name`` is the member's username."""

    kind: Literal["api_key", "member"]
    name: str
    key_prefix: str = ""

    def document(self) -> dict[str, str]:
        """The trace document's ``caller``."""
        if self.kind == "api_key":
            return {"kind": self.kind, "name": self.name, "key_prefix": self.key_prefix}
        return {"kind": self.kind, "name": self.name}


_CALLER: ContextVar[Caller | None] = ContextVar("spanproof_trace_caller", default=None)


def caller_set(caller: Caller | None) -> None:
    """The caller of the rest of this request (``CallerMiddleware`` restores the one
    before when the request ends)."""
    _CALLER.set(caller)


def caller_document() -> dict[str, str] | None:
    """The current call's caller as a trace records it; ``None`` outside a request."""
    caller = _CALLER.get()
    return caller.document() if caller is not None else None


class CallerMiddleware:
    """Each request starts with the signed-in member as its caller, or none; whatever the
    request set is gone when it ends, so a thread's next request never inherits it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user: Any = getattr(request, "user", None)
        member = (
            Caller(kind="member", name=user.get_username())
            if user is not None and user.is_authenticated
            else None
        )
        token = _CALLER.set(member)
        try:
            return self.get_response(request)
        finally:
            _CALLER.reset(token)
