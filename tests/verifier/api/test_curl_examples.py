"""The curl examples of the API keys page and the schema's description run as pasted:
the page asks only for ``SPANPROOF`` and ``SPANPROOF_KEY``, so an example that reads
another shell variable sets it itself (the traces example once read a ``$TRACE_ID``
nothing set, and asked for ``/connect/v1/traces//export``)."""

from __future__ import annotations

import re

from verifier.api.curl_examples import EXAMPLES

GIVEN = {"SPANPROOF", "SPANPROOF_KEY"}


def test_every_variable_an_example_reads_is_given_or_set_by_it():
    for example in EXAMPLES:
        read = set(re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)", example.command))
        set_here = set(re.findall(r"^\s*([A-Z_][A-Z0-9_]*)=", example.command, re.M))
        assert read <= GIVEN | set_here, (example.family, sorted(read - GIVEN - set_here))


def test_the_traces_example_takes_its_trace_id_from_a_retrieval():
    (traces,) = [e for e in EXAMPLES if e.family == "Traces"]
    assert traces.command.startswith('TRACE_ID=$(curl -s -X POST "$SPANPROOF/connect/v1/retrieve"')
    assert '["trace_id"]' in traces.command
    assert "/connect/v1/traces/$TRACE_ID/export?format=json" in traces.command
