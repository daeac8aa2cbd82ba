"""A fresh demo has a trace to walk: ``load_demo`` asks one retrieval through the real
retrieve service (auditor walk: the Traces page was empty after ``make run``)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from verifier.models import Trace
from verifier.retrieval_ranking import DEFAULT_INCLUDE

pytestmark = pytest.mark.django_db


def test_the_demo_records_one_retrieval_trace_to_walk():
    call_command("load_demo", stdout=StringIO())
    traces = Trace.objects.filter(workspace__slug="demo")
    assert list(traces.values_list("operation", flat=True)) == ["retrieve"]
    trace = traces.get()
    assert trace.query
    # written by the retrieve service: its steps, its policy and the claims it weighed
    assert {"seed_ms", "ranking_ms", "total_ms"} <= set(trace.document["timing"])
    assert trace.document["verification_policy"]["include"] == list(DEFAULT_INCLUDE)
    assert trace.considered.filter(included=True).exists()

    client = Client()
    client.force_login(get_user_model().objects.get(username="auditor"))
    listing = client.get(reverse("audit:trace-list")).content.decode()
    assert str(trace.trace_id) in listing
    page = client.get(reverse("audit:trace-detail", args=[trace.trace_id]))
    assert page.status_code == 200 and "Vector search" in page.content.decode()

    call_command("load_demo", stdout=StringIO())  # a later start adds none
    assert traces.count() == 1
