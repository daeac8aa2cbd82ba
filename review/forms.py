"""Input of the review console's actions."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from review.selectors.decisions import review_today
from verifier.untrusted_input import decimal_int

DECISIONS = [
    ("supported", "Supported"),
    ("contradicted", "Contradicted"),
    ("not_stated", "Not stated by the source"),
]
BULK_ACTIONS = [
    ("assign", "Assign to"),
    ("exclude", "Exclude"),
    ("rejudge", "Send back to the judge"),
]
UNASSIGN = "none"
MAX_BULK = 200


class ItemActionForm(forms.Form):
    """An action on one item carries the version of the item it was made on (the token
    of ``review_item_change``); a missing or stale version is refused by the review
    services (409 with the current item)."""

    version = forms.CharField(required=False, max_length=60)

    @property
    def expected_version(self) -> str | None:
        return self.cleaned_data.get("version") or None


class DecisionForm(ItemActionForm):
    decision = forms.ChoiceField(choices=DECISIONS)
    note = forms.CharField(required=False, max_length=2000)
    # Code-point offsets of a span the reviewer selected in the source pane, and the
    # selected text, which the service checks against the source at those offsets.
    span_start = forms.IntegerField(required=False, min_value=0)
    span_end = forms.IntegerField(required=False, min_value=1)
    span_text = forms.CharField(required=False, strip=False)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        start, end = data.get("span_start"), data.get("span_end")
        if (start is None) != (end is None):
            raise forms.ValidationError("A selected span needs both a start and an end.")
        if start is not None and end is not None and start >= end:
            raise forms.ValidationError("A selected span must end after it starts.")
        return data

    @property
    def span(self) -> tuple[int, int] | None:
        start, end = self.cleaned_data.get("span_start"), self.cleaned_data.get("span_end")
        return (start, end) if start is not None and end is not None else None


class ExcludeForm(ItemActionForm):
    reason = forms.CharField(max_length=300)


class NoteForm(forms.Form):
    text = forms.CharField(max_length=4000, widget=forms.Textarea(attrs={"rows": 3}))


class BulkForm(forms.Form):
    action = forms.ChoiceField(choices=BULK_ACTIONS)
    claims = forms.CharField(required=False)  # one public id per selected row, via getlist
    reason = forms.CharField(required=False, max_length=300)
    # A user id of the workspace's deciders, or "none" to unassign (checked by the service).
    assignee = forms.CharField(required=False, max_length=20)
    confirm = forms.BooleanField(required=False)

    def __init__(self, *args: Any, claim_ids: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # each selected row once, in the order sent; more than MAX_BULK is refused whole
        # (clean), never cut short: a confirmation for the first 200 of 250 hid the rest
        self.claim_ids = list(dict.fromkeys(c for c in (claim_ids or []) if c))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not self.claim_ids:
            raise forms.ValidationError("Select at least one claim.")
        if len(self.claim_ids) > MAX_BULK:
            raise forms.ValidationError(
                f"A bulk action takes at most {MAX_BULK:,} claims at once; "
                f"{len(self.claim_ids):,} were selected. Nothing was done: select fewer."
            )
        if data.get("action") == "exclude" and not (data.get("reason") or "").strip():
            self.add_error("reason", "An exclusion needs a reason.")
        if data.get("action") == "assign":
            assignee = (data.get("assignee") or "").strip()
            if assignee != UNASSIGN and decimal_int(assignee) is None:
                self.add_error("assignee", "Choose who to assign the claims to.")
        return data

    @property
    def assignee_id(self) -> int | None:
        """The chosen assignee's user id; None to unassign."""
        value = (self.cleaned_data.get("assignee") or "").strip()
        return decimal_int(value)


class GuidelinesForm(forms.Form):
    text = forms.CharField(
        required=False,
        max_length=20_000,
        label="Guidelines (markdown)",
        widget=forms.Textarea(attrs={"rows": 16}),
    )


class DecisionFilterForm(forms.Form):
    """The Decisions page's filter: a day (today when blank) and one reviewer or admin
    of the workspace (everyone when blank), by user name."""

    day = forms.DateField(
        required=False,
        label="Day (UTC)",
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": "Enter a day as a date, such as 2026-06-10."},
    )
    reviewer = forms.ChoiceField(required=False, label="Reviewer")

    def __init__(self, *args: Any, reviewers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["reviewer"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "Everyone"), *((name, name) for name in reviewers)]
        field.error_messages["invalid_choice"] = (
            "No reviewer or admin of this workspace is called that: choose one from the list."
        )

    def clean_day(self) -> date | None:
        """A day from 1970 up to today (UTC, the page's day: already tomorrow in Auckland
        while still today in Los Angeles, so the message names it): no decision is
        older, none is made later."""
        day: date | None = self.cleaned_data.get("day")
        today = review_today()
        if day is not None and not date(1970, 1, 1) <= day <= today:
            raise forms.ValidationError(
                f"Enter a day from 1970-01-01 up to today, {today.isoformat()} UTC: "
                "no decision is made later."
            )
        return day

    def full_clean(self) -> None:
        """A field with an error says so to assistive technology (``aria-invalid``,
        described by the error printed beside it)."""
        super().full_clean()
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs.update(
                    {"aria-invalid": "true", "aria-describedby": f"{self[name].auto_id}_error"}
                )
