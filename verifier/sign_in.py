"""The console's sign-in form.

Django's ``AuthenticationForm`` sets its username field's ``max_length`` after the field
is built, so the length is drawn on the widget but never checked: a username of any
length reached ``authenticate``, and django-axes, recording the failed attempt, wrote it
into a ``varchar(255)`` (a 500 for a 300-character name). A username longer than any
user's is refused here, beside its field, before anyone is asked about it (and counts
as no attempt: no user can have it)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.core.validators import MaxLengthValidator


class SignInForm(AuthenticationForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        limit = getattr(field, "max_length", None)  # the user model's, set by the form
        if limit is not None:
            field.validators.append(MaxLengthValidator(limit))
