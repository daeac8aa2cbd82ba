"""The review console's signal receivers: a reviewer who signs out, or whose account is
deactivated, is not reviewing, so their leases are released
(``review_lease_release_signed_out``) and others may take those items at once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_save
from django.dispatch import receiver

from review.services import review_lease_release_signed_out


@receiver(user_logged_out, dispatch_uid="review.release_leases_on_sign_out")
def release_leases_on_sign_out(sender: Any, user: User | None = None, **kwargs: Any) -> None:
    """Django's ``user_logged_out``: ``user`` is None when nobody was signed in."""
    if user is not None and user.pk is not None:
        review_lease_release_signed_out(reviewer=user)


@receiver(post_save, sender=User, dispatch_uid="review.release_leases_on_deactivation")
def release_leases_on_deactivation(sender: Any, instance: User, **kwargs: Any) -> None:
    """A user saved inactive (the Django admin's User page, or any code that sets
    ``is_active`` False and saves) cannot sign in or act any more: their items are
    released now, not when the leases run out. Saving an inactive user again finds no
    lease to release."""
    if not instance.is_active:
        review_lease_release_signed_out(reviewer=instance)
