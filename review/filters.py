"""The review queue's filters (django-filter), over a queryset the caller scopes to a workspace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from review.models import ReviewAssignment, ReviewLease
from review.queue_reasons import (
    HUMAN_DECISION_REASONS,
    QUEUE_STATE_VALUES,
    queue_reason_values,
)
from review.verdict_columns import with_answer_percent_in_force, with_judge_model_in_force
from verifier import vocabulary, widgets
from verifier.models import Claim, ClaimOrigin, ClaimStateChoices
from verifier.selectors.text_search import (
    SEARCH_MAX_CHARS,
    search_query_validator,
    text_search,
)
from verifier.state_policy import queue_rank
from verifier.states import StateReason

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import QueryDict

STATE_CHOICES = [
    ("queue", "Queue (undecided unverified + contradicted)"),
    (ClaimStateChoices.UNVERIFIED.value, "Unverified"),
    (ClaimStateChoices.CONTRADICTED.value, "Contradicted"),
    (ClaimStateChoices.INFERRED.value, "Inferred"),
]


# Reasons a claim of a state the State filter offers may have besides the queue's own
# (never entailed, a reviewer's support or an exclusion: those claims are supported or
# excluded). A claim a reviewer contradicted, and an inferred claim, has one of these.
_OFFERED_STATE_REASONS = tuple(
    reason.value
    for reason in StateReason
    if reason not in (StateReason.ENTAILED, StateReason.HUMAN_SUPPORTED, StateReason.EXCLUDED)
)


def other_reason_values() -> tuple[str, ...]:
    """The reasons outside the queue's order in force that a listed claim may have
    (``human_contradicted``, ``fuzzy_only``, ``legacy_affirmed``, ``no_bound_span`` by
    default): each has a chip of its own wherever the filter holds such claims, so the
    chips add up to the filter's count."""
    order = queue_reason_values()
    return tuple(reason for reason in _OFFERED_STATE_REASONS if reason not in order)


def reason_choices() -> list[tuple[str, str]]:
    """The reason filter's choices: the queue's reasons in the order in force, then the
    others a listed claim may have, labelled."""
    return [
        (reason, vocabulary.label("reason", reason))
        for reason in (*queue_reason_values(), *other_reason_values())
    ]


AGE_CHOICES = [
    ("1d", "Newer than a day"),
    ("7d", "Newer than a week"),
    ("30d", "Newer than 30 days"),
    ("old", "Older than 30 days"),
]
AGE_DAYS = {"1d": 1, "7d": 7, "30d": 30}
# Whose claims: mine (assigned to me, or in my review now), or nobody's (assigned to no
# one: what an admin hands out next). Bookmarks say ``mine=true``.
WHOSE_MINE = "true"
WHOSE_NOBODY = "nobody"
WHOSE_CHOICES = [
    (WHOSE_MINE, "Mine: assigned or in review"),
    (WHOSE_NOBODY, "Nobody's: not assigned"),
]
# Query-string keys that are part of the filter (kept when moving between items).
FILTER_KEYS = (
    "state",
    "reason",
    "source",
    "domain_pack",
    "ingest_job",
    "origin",
    "judge_model",
    "confidence_min",
    "confidence_max",
    "age",
    "mine",
    "q",
)
# The filters that read what the judge (or a reviewer) found: blind review, which hides
# that until the reviewer decides, neither offers nor applies them, and leaves them out
# of the links it makes. Without the state filter the queue is the default one. The
# judge model is one: it reads the verdict the state rests on, whose answer blind review
# hides.
BLIND_HIDDEN_KEYS = ("state", "reason", "judge_model", "confidence_min", "confidence_max")
CONFIDENCE_RANGE = "a percentage from 0 to 100, as the Judge's confidence column shows it"


def queue_undecided(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    """The default queue: unverified and contradicted claims no reviewer has decided (a
    decided one is found under its state). Both columns are in the queue index's
    INCLUDE list, so the exclusion is checked in the index."""
    return queryset.filter(state__in=QUEUE_STATE_VALUES).exclude(
        state_reason__in=HUMAN_DECISION_REASONS
    )


class PercentField(forms.DecimalField):
    """A percentage bound. Django refuses "NaN" and "Infinity" with the "invalid"
    message formatted with the value (``%`` formatting); the label's "(%)" would break
    it into a 500: refused here with the message as it is, as for any other non-number."""

    def validate(self, value: Any) -> None:
        if value not in self.empty_values and not value.is_finite():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        super().validate(value)


class PercentFilter(django_filters.NumberFilter):
    field_class = PercentField


# The largest primary key (``BigAutoField``), the bound of an id filter.
MAX_ID = 2**63 - 1
INGEST_JOB_SAID = "Ingest job #: enter a job's number, a whole number from 1 (such as 12)."


class IdFilter(django_filters.NumberFilter):
    """A row's id: a whole number (Django's ``IntegerField`` refuses "1.5", "NaN",
    "1e3"), bounded by ``min_value`` / ``max_value``."""

    field_class = forms.IntegerField


def _percent_filter(method: str, label: str) -> django_filters.NumberFilter:
    """A judge's-confidence bound, in percent as the console shows confidences."""
    said = f"{label}: enter {CONFIDENCE_RANGE}."
    # The bounds' messages are %-format strings (Django fills in the limit); "invalid"'s is not.
    bound = said.replace("%", "%%")
    return PercentFilter(
        method=method,
        label=label,
        widget=widgets.NumberInput,
        min_value=0,
        max_value=100,
        error_messages={"invalid": said, "min_value": bound, "max_value": bound},
    )


class QueueFilterForm(forms.Form):
    """The filter bar's form: a field with an error says so to assistive technology
    (``aria-invalid``, described by the error the bar prints beside it)."""

    def full_clean(self) -> None:
        super().full_clean()
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs.update(
                    {"aria-invalid": "true", "aria-describedby": f"{self[name].auto_id}_error"}
                )


class ReviewQueueFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(
        choices=STATE_CHOICES,
        method="filter_state",
        empty_label=None,
        label="State",
        widget=widgets.Select,
    )
    reason = django_filters.ChoiceFilter(
        choices=reason_choices,
        method="filter_reason",
        empty_label="Any reason",
        label="Reason",
        widget=widgets.Select,
    )
    # Text inputs rather than selects: a workspace may hold thousands of sources and
    # ingest jobs, and listing them all would cost a query and a long render per page.
    source = django_filters.CharFilter(
        field_name="source__ref", lookup_expr="exact", label="Source ref", widget=widgets.TextInput
    )
    domain_pack = django_filters.ChoiceFilter(
        field_name="source__domain_pack",
        choices=[],
        empty_label="Any domain pack",
        label="Domain pack",
        widget=widgets.Select,
    )
    # A job's number: a whole number a job id can be. Another value ("1.5", a number
    # past the largest id) would match no job and silently list nothing.
    ingest_job = IdFilter(
        field_name="ingest_job_id",
        label="Ingest job #",
        widget=widgets.NumberInput,
        min_value=1,
        max_value=MAX_ID,
        # (No "%" in it: Django %-formats the bounds' messages with the limit.)
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value"), INGEST_JOB_SAID),
    )
    origin = django_filters.ChoiceFilter(
        field_name="origin",
        choices=ClaimOrigin.choices,
        empty_label="Any origin",
        label="Origin",
        widget=widgets.Select,
    )
    # The columns of the verdict in force are subqueries (review.verdict_columns),
    # annotated only when one of these is set.
    judge_model = django_filters.CharFilter(
        method="filter_judge_model", label="Judge model", widget=widgets.TextInput
    )
    # In percent, as the console shows a confidence; only verdicts that gave an answer
    # (supports / contradicts) have one: an abstention, a failure, a claim never judged
    # and a reviewer's decision match no bound.
    confidence_min = _percent_filter("filter_confidence_min", "Judge's confidence ≥ (%)")
    confidence_max = _percent_filter("filter_confidence_max", "Judge's confidence ≤ (%)")
    age = django_filters.ChoiceFilter(
        choices=AGE_CHOICES,
        method="filter_age",
        empty_label="Any age",
        label="Age",
        widget=widgets.Select,
    )
    mine = django_filters.ChoiceFilter(
        choices=WHOSE_CHOICES,
        method="filter_mine",
        empty_label="Anyone's",
        label="Whose",
        widget=widgets.Select,
    )
    q = django_filters.CharFilter(
        method="filter_search",
        label="Search",
        widget=widgets.TextInput,
        # a search's cost grows with its length (verifier.selectors.text_search)
        max_length=SEARCH_MAX_CHARS,
        validators=[search_query_validator],
    )

    class Meta:
        model = Claim
        fields: list[str] = []
        form = QueueFilterForm

    data: Any  # the bound query (django-filter is untyped)
    queryset: QuerySet[Claim]

    def __init__(
        self,
        *args: Any,
        reviewer: User | None = None,
        domain_packs: Iterable[str] = (),
        blind: bool = False,
        **kwargs: Any,
    ) -> None:
        """``reviewer``: whose assignments and lease "Assigned to me" means; ``domain_packs``: the
        workspace's packs, the choices of that filter (read once by the caller); ``blind``:
        the reviewer's blind review, without the filters of :data:`BLIND_HIDDEN_KEYS`."""
        super().__init__(*args, **kwargs)
        self.reviewer = reviewer
        self.blind = blind
        self.filters["domain_pack"].extra["choices"] = [(p, p) for p in domain_packs]
        data = self.data.copy() if self.data is not None else {}
        if blind:
            for name in BLIND_HIDDEN_KEYS:
                del self.filters[name]
            # The state filter's default, the queue itself, without the field.
            self.queryset = queue_undecided(self.queryset)
        elif not data.get("state"):
            # The default state filter is the queue itself.
            data["state"] = "queue"
        reason = data.get("reason")
        if reason and not blind:
            # A reason may be given by its label, as its chip and the select show it.
            data["reason"] = vocabulary.code_of("reason", str(reason)) or reason
        self.data = data

    @property
    def blind_ignored(self) -> list[str]:
        """The judge-derived filters given that blind review leaves out."""
        if not self.blind:
            return []
        return [name for name in BLIND_HIDDEN_KEYS if (self.data or {}).get(name)]

    def error_message(self) -> str:
        """What is wrong with the filter, each field by its label ("" when valid)."""
        errors = self.form.errors
        if not errors:
            return ""
        said = []
        for name, messages in errors.items():
            label = self.form.fields[name].label if name in self.form.fields else ""
            for message in messages:
                said.append(
                    message
                    if not label or str(message).startswith(str(label))
                    else f"{label}: {message}"
                )
        return (
            "This filter is invalid, so no claims are listed: "
            + " ".join(s if s.endswith(".") else s + "." for s in said)
            + " Fix the field or reset the filters."
        )

    def qs_without(self, *names: str) -> QuerySet[Claim]:
        """What :attr:`qs` would be with the filters ``names`` unset, from this filter
        set's own cleaned values (call only when it is valid). The reason chips count
        the page's filter without its reason: this spares a second filter set, its
        form and its validation on every page view."""
        queryset: QuerySet[Claim] = self.queryset.all()
        for name, value in self.form.cleaned_data.items():
            if name not in names:
                queryset = self.filters[name].filter(queryset, value)
        return queryset

    def filter_state(self, queryset: QuerySet[Claim], name: str, value: str) -> QuerySet[Claim]:
        if value == "queue" or not value:
            return queue_undecided(queryset)
        return queryset.filter(state=value)

    def filter_reason(self, queryset: QuerySet[Claim], name: str, value: str) -> QuerySet[Claim]:
        if not value:
            return queryset
        # The reason itself, as its chip counts it (a reviewer's contradiction has its
        # own). The rank too: it leads the queue index, so the page reads only that
        # reason's range.
        return queryset.filter(state_reason=value, queue_rank=queue_rank(value))

    def filter_judge_model(
        self, queryset: QuerySet[Claim], name: str, value: str
    ) -> QuerySet[Claim]:
        # The model of the verdict the state rests on, as the Judge column names it
        # (after an undo the judge's again), not merely the latest verdict's.
        return with_judge_model_in_force(queryset).filter(judge_model_in_force__iexact=value)

    def filter_confidence_min(
        self, queryset: QuerySet[Claim], name: str, value: Decimal
    ) -> QuerySet[Claim]:
        return with_answer_percent_in_force(queryset).filter(
            answer_percent_in_force__gte=float(value)
        )

    def filter_confidence_max(
        self, queryset: QuerySet[Claim], name: str, value: Decimal
    ) -> QuerySet[Claim]:
        return with_answer_percent_in_force(queryset).filter(
            answer_percent_in_force__lte=float(value)
        )

    def filter_age(self, queryset: QuerySet[Claim], name: str, value: str) -> QuerySet[Claim]:
        now = timezone.now()
        if value == "old":
            return queryset.filter(created_at__lt=now - timedelta(days=30))
        if value in AGE_DAYS:
            return queryset.filter(created_at__gte=now - timedelta(days=AGE_DAYS[value]))
        return queryset

    def filter_mine(self, queryset: QuerySet[Claim], name: str, value: str) -> QuerySet[Claim]:
        if value == WHOSE_NOBODY:
            # NOT EXISTS, an anti-join: NOT IN over every assignment is rescanned per claim
            # once the assignments outgrow work_mem
            return queryset.exclude(
                Exists(ReviewAssignment.objects.filter(claim_id=OuterRef("pk")))
            )
        if value != WHOSE_MINE or self.reviewer is None:
            return queryset
        # Assigned to me, or the item I am reviewing right now (my live lease): the two
        # sets of claim ids, each from its own index. An OR across two outer joins read
        # every queued claim (100,000 claims: 436 ms for the page, 65 ms this way).
        mine = (
            ReviewAssignment.objects.filter(assignee=self.reviewer)
            .values("claim_id")
            .union(
                ReviewLease.objects.filter(
                    reviewer=self.reviewer, expires_at__gt=timezone.now()
                ).values("claim_id")
            )
        )
        return queryset.filter(pk__in=mine)

    def filter_search(self, queryset: QuerySet[Claim], name: str, value: str) -> QuerySet[Claim]:
        """The claim's text, its source's ref or title by the search rule (case, accents,
        Unicode form, whitespace runs folded: ``verifier.selectors.text_search``), or its
        id exactly."""
        match = text_search(value, "text_folded", "source__ref_folded", "source__title_folded")
        if match is None:
            return queryset
        return queryset.filter(match | Q(public_id=value.strip()))


def filter_in_words(values: Mapping[str, Any]) -> str:
    """A queue filter's cleaned ``values`` (``ReviewQueueFilter``'s form) as a reviewer
    reads them: each set field by its label and its value's label ("Reason: Judge
    undecided, Whose: Mine"), the default state (the queue itself) left out; "" for the
    default queue. Never a code (``mine=True``, ``reason=abstained``)."""
    said = []
    for name, value in values.items():
        if value in (None, "", []) or (name == "state" and value == "queue"):
            continue
        declared = ReviewQueueFilter.base_filters.get(name)
        if declared is None:
            continue
        if name == "mine":
            shown = "Nobody's" if value == WHOSE_NOBODY else "Mine"
        elif name == "reason":
            shown = vocabulary.label("reason", value)
        elif isinstance(declared, django_filters.ChoiceFilter):
            shown = str(dict(declared.extra.get("choices") or []).get(value, value))
        elif name in ("confidence_min", "confidence_max"):
            shown = f"{value:g} %"
        elif name in ("q", "source", "judge_model"):
            shown = f"“{value}”"
        else:
            shown = str(value)
        said.append(f"{str(declared.label).removesuffix(' (%)')}: {shown}")
    return ", ".join(said)


def without_blind_hidden(params: QueryDict) -> QueryDict:
    """``params`` (a query string's) without the judge-derived filters blind review
    leaves out (:data:`BLIND_HIDDEN_KEYS`): what its links may carry."""
    kept = params.copy()
    for key in BLIND_HIDDEN_KEYS:
        kept.pop(key, None)
    return kept


def filter_querystring(params: QueryDict, *, blind: bool = False) -> str:
    """The filter part of a query string, to carry the filter from item to item; in
    blind review (``blind``) without the judge-derived filters it does not apply."""
    from django.http import QueryDict

    kept = QueryDict(mutable=True)
    for key in FILTER_KEYS:
        if blind and key in BLIND_HIDDEN_KEYS:
            continue
        value = params.get(key)
        if value:
            kept[key] = value
    return kept.urlencode()
