"""Asking before what cannot be undone (revoke a key, turn off a webhook, take a member
out, change your own role), with or without script.

The form carries its question as ``data-confirm``; ``static/js/confirm.js`` asks it in
the browser and, when the person agrees, adds ``confirmed=1`` to what the form sends. A
view calls :func:`ask_first` before it acts: a POST without ``confirmed=1`` (script off,
or a form sent by other means) gets a page that asks the same question, with a button
that sends the same fields again, confirmed, and a way back that changes nothing.
"""

from __future__ import annotations

from typing import Final

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

CONFIRMED_FIELD: Final = "confirmed"
_NOT_RESENT: Final = frozenset({"csrfmiddlewaretoken", CONFIRMED_FIELD})


def ask_first(
    request: HttpRequest, *, question: str, action: str, back: str
) -> HttpResponse | None:
    """None when the person confirmed; else the page that asks ``question`` (``action``
    names the button, ``back`` is where "Keep it as it is" leads)."""
    if request.POST.get(CONFIRMED_FIELD) == "1":
        return None
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in _NOT_RESENT
        for value in values
    ]
    context = {"question": question, "action": action, "back": back, "fields": fields}
    return render(request, "audit/confirm.html", context)
