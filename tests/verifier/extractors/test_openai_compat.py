"""The OpenAI-compatible extractor against a real local chat-completions server that
misbehaves on purpose."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.verifier.judges.chat_server import ChatServer, completion
from verifier.extractors import ExtractedClaim, Extractor, ExtractorConfigError, build_extractor
from verifier.extractors.openai_compat import (
    PROMPT_VERSION,
    ExtractorUnavailable,
    OpenAICompatibleExtractor,
    locate_quote,
    parse_answer,
    split_chunks,
)

TEXT = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current\n"
    "slows near Halden Point.\n"
    "\n"
    "The Halden Point lighthouse was built in 1871 by the harbour board."
)
GOOD = [
    {"text": "The Marrow River delta gains land in wet years.", "quote": TEXT[:47]},
    {
        "text": "The Halden Point lighthouse was built in 1871.",
        "quote": "The Halden Point lighthouse was built in 1871",
    },
]


def _claims(entries: list[Any]) -> str:
    return json.dumps({"claims": entries})


def _always(content: str, status: int = 200):
    return lambda request, call: (status, completion(content))


def _chunk_of(request: dict[str, Any]) -> str:
    user = request["messages"][-1]["content"]
    return user[user.index("<<<TEXT\n") + 8 : user.rindex("\nTEXT>>>")]


def _extractor(server: ChatServer, **kwargs: Any) -> OpenAICompatibleExtractor:
    return OpenAICompatibleExtractor(
        base_url=server.base_url, model="qwen2.5-7b-instruct", api_key="sk-test", **kwargs
    )


def _assert_verbatim(claims: list[ExtractedClaim], text: str) -> None:
    for claim in claims:
        assert claim.quote and claim.quote in text


def test_good_answer_gives_claims_with_verbatim_quotes() -> None:
    with ChatServer(_always(_claims(GOOD))) as server:
        extractor = _extractor(server)
        claims = extractor.extract(TEXT)
    assert claims == [ExtractedClaim(e["text"], e["quote"]) for e in GOOD]
    _assert_verbatim(claims, TEXT)
    assert isinstance(extractor, Extractor)
    assert extractor.family == "qwen" and extractor.model_id == "qwen2.5-7b-instruct"
    assert extractor.prompt_version == PROMPT_VERSION
    [request] = server.requests
    assert request["model"] == "qwen2.5-7b-instruct"
    assert request["temperature"] == 0.0
    assert request["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert '"claims"' in request["messages"][0]["content"]
    assert _chunk_of(request) == TEXT
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_no_api_key_sends_no_authorization_header() -> None:
    with ChatServer(_always(_claims([]))) as server:
        OpenAICompatibleExtractor(base_url=server.base_url + "/", model="m").extract(TEXT)
    assert "Authorization" not in server.headers[0]


@pytest.mark.parametrize(
    "content",
    [
        "```json\n" + _claims(GOOD) + "\n```",
        "```\n" + _claims(GOOD) + "\n```",
        "Here are the claims:\n" + _claims(GOOD) + "\nHope this helps.",
        json.dumps(GOOD),  # a bare list
    ],
)
def test_fenced_or_wrapped_json_is_parsed(content: str) -> None:
    with ChatServer(_always(content)) as server:
        claims = _extractor(server).extract(TEXT)
    assert [c.text for c in claims] == [e["text"] for e in GOOD]


@pytest.mark.parametrize(
    "content",
    [
        "I could not find any claims, sorry.",
        "{not json at all}",
        "",
        json.dumps({"results": GOOD}),
        json.dumps({"claims": "none"}),
        json.dumps("just a string"),
    ],
)
def test_garbage_answer_gives_no_claims_and_is_not_fatal(content: str) -> None:
    with ChatServer(_always(content)) as server:
        assert _extractor(server).extract(TEXT) == []
    assert len(server.requests) == 1


def test_quotes_not_in_the_text_are_dropped_the_rest_kept() -> None:
    entries = [
        GOOD[0],
        {"text": "The lighthouse is red.", "quote": "The lighthouse is painted red."},
        {"text": "The delta gains land.", "quote": "the marrow river delta gains land"},
        {"text": "Paraphrased.", "quote": "The Marrow delta ... wet years"},
    ]
    with ChatServer(_always(_claims(entries))) as server:
        claims = _extractor(server).extract(TEXT)
    assert claims == [ExtractedClaim(GOOD[0]["text"], GOOD[0]["quote"])]


def test_quote_differing_only_in_whitespace_is_bound_to_the_texts_own_span() -> None:
    # the model copied the hard line break as a space
    entry = {
        "text": "Sediment settles where the current slows near Halden Point.",
        "quote": "Sediment settles where the current slows near Halden Point.",
    }
    with ChatServer(_always(_claims([entry]))) as server:
        [claim] = _extractor(server).extract(TEXT)
    assert claim.quote == "Sediment settles where the current\nslows near Halden Point."
    assert claim.quote in TEXT


def test_wrong_shapes_and_non_string_fields_are_dropped() -> None:
    entries: list[Any] = [
        "The Marrow River delta gains land in wet years.",
        ["text", "quote"],
        None,
        {"text": "No quote."},
        {"quote": TEXT[:47]},
        {"text": 42, "quote": TEXT[:47]},
        {"text": "Quote is a list.", "quote": [TEXT[:47]]},
        {"text": "  ", "quote": TEXT[:47]},
        {"text": "Empty quote.", "quote": "   "},
        {"text": None, "quote": None},
        GOOD[1],
    ]
    with ChatServer(_always(_claims(entries))) as server:
        claims = _extractor(server).extract(TEXT)
    assert claims == [ExtractedClaim(GOOD[1]["text"], GOOD[1]["quote"])]


def test_identical_claims_are_returned_once_and_text_is_tidied() -> None:
    entries = [
        {"text": "  The Marrow River delta\ngains land in wet years. ", "quote": TEXT[:47]},
        GOOD[0],
        GOOD[0],
        GOOD[1],
    ]
    with ChatServer(_always(_claims(entries))) as server:
        claims = _extractor(server).extract(TEXT)
    assert [c.text for c in claims] == [GOOD[0]["text"], GOOD[1]["text"]]


def test_http_500_raises_extractor_unavailable_with_a_clear_message() -> None:
    server = ChatServer(lambda request, call: (500, json.dumps({"error": "boom"})))
    with server, pytest.raises(ExtractorUnavailable, match="http 500") as exc:
        _extractor(server).extract(TEXT)
    assert "qwen2.5-7b-instruct" in str(exc.value) and "/chat/completions" in str(exc.value)
    assert "sk-test" not in str(exc.value)


def test_timeout_raises_extractor_unavailable() -> None:
    server = ChatServer(lambda request, call: (200, completion(_claims(GOOD)), 1.5))
    with server, pytest.raises(ExtractorUnavailable, match=r"timeout after 0\.3s"):
        _extractor(server, timeout=0.3).extract(TEXT)


def test_unreachable_server_raises_extractor_unavailable() -> None:
    with ChatServer(_always(_claims(GOOD))) as server:
        url = server.base_url
    with pytest.raises(ExtractorUnavailable, match="request failed"):
        OpenAICompatibleExtractor(base_url=url, model="m", timeout=1).extract(TEXT)


@pytest.mark.parametrize(
    "body",
    ["not json", json.dumps({"choices": []}), json.dumps({"choices": [{"message": {}}]})],
)
def test_a_response_that_is_not_a_chat_completion_raises(body: str) -> None:
    server = ChatServer(lambda request, call: (200, body))
    with server, pytest.raises(ExtractorUnavailable, match="not a chat completion"):
        _extractor(server).extract(TEXT)


def test_server_without_json_mode_is_retried_without_response_format() -> None:
    def reply(request, call):
        if "response_format" in request:
            return 400, json.dumps({"error": "response_format is not supported"})
        return 200, completion(_claims(GOOD))

    with ChatServer(reply) as server:
        extractor = _extractor(server)
        assert len(extractor.extract(TEXT)) == 2
        assert len(extractor.extract(TEXT)) == 2
    assert ["response_format" in r for r in server.requests] == [True, False, False]


def test_empty_text_asks_nothing() -> None:
    with ChatServer(_always(_claims(GOOD))) as server:
        assert _extractor(server).extract("  \n\n ") == []
    assert server.requests == []


def _paragraph(i: int) -> str:
    return f"Paragraph {i} states fact number {i} about the river in some detail. " * 4


def test_long_text_is_sent_in_paragraph_chunks_and_claims_are_merged() -> None:
    paragraphs = [_paragraph(i).strip() for i in range(8)]
    text = "\n\n".join(paragraphs)

    def reply(request, call):
        chunk = _chunk_of(request)
        entries = []
        for i, paragraph in enumerate(paragraphs):
            if paragraph in chunk:
                quote = f"Paragraph {i} states fact number {i} about the river in some detail."
                entries.append({"text": quote, "quote": quote})
        entries.append({"text": "Shared claim.", "quote": "about the river"})  # in every chunk
        return 200, completion(_claims(entries))

    with ChatServer(reply) as server:
        claims = _extractor(server, max_chunk_chars=700).extract(text)
    chunks = [_chunk_of(r) for r in server.requests]
    assert len(chunks) > 1
    assert all(len(c) <= 700 and c in text for c in chunks)
    # whole paragraphs: every paragraph is in exactly one chunk
    assert all(sum(p in c for c in chunks) == 1 for p in paragraphs)
    # chunk order, then the model's order; the claim every chunk repeats comes once
    assert [c.text for c in claims if c.text != "Shared claim."] == [
        f"Paragraph {i} states fact number {i} about the river in some detail." for i in range(8)
    ]
    assert [c.text for c in claims].count("Shared claim.") == 1
    _assert_verbatim(claims, text)


def test_split_chunks_cuts_overlong_paragraphs_at_sentence_ends() -> None:
    sentence = "The harbour board met every spring to inspect the lighthouse lamp. "
    text = "Intro line of the text.\n\n" + sentence * 20 + "\n\nClosing line."
    chunks = split_chunks(text, 300)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk) <= 300 and chunk in text and chunk == chunk.strip()
    # no sentence is cut: every chunk starts and ends at a sentence boundary
    assert all(c.startswith(("Intro", "The harbour")) for c in chunks)
    assert all(c.endswith(("lamp.", "Closing line.")) for c in chunks)
    assert sum(c.count("harbour") for c in chunks) == 20


def test_split_chunks_without_any_break_still_bounds_size() -> None:
    text = "x" * 1000
    chunks = split_chunks(text, 300)
    assert "".join(chunks) == text and all(len(c) <= 300 for c in chunks)
    assert split_chunks("", 300) == [] and split_chunks("Short.", 300) == ["Short."]


def test_parse_answer_and_locate_quote_units() -> None:
    assert parse_answer('```json\n{"claims": []}\n```') == []
    with pytest.raises(ValueError):
        parse_answer("nope")
    with pytest.raises(ValueError):
        parse_answer('{"claims": {}}')
    assert locate_quote("  gains land ", TEXT) == "gains land"
    assert locate_quote("current slows", TEXT) == "current\nslows"
    assert locate_quote("current slowly", TEXT) is None
    assert locate_quote("", TEXT) is None


# -- registry ----------------------------------------------------------------------------


def test_registry_builds_the_openai_extractor_from_config() -> None:
    with ChatServer(_always(_claims(GOOD))) as server:
        extractor = build_extractor(
            {
                "backend": "openai",
                "base_url": server.base_url,
                "model": "mistral-small-3.1",
                "api_key": "sk-x",
                "timeout": 5,
            }
        )
        assert isinstance(extractor, OpenAICompatibleExtractor)
        assert len(extractor.extract(TEXT)) == 2
    assert extractor.family == "mistral"
    assert extractor.timeout == 5.0
    assert server.headers[0]["Authorization"] == "Bearer sk-x"


@pytest.mark.parametrize("backend", ["openai", "OpenAI", "openai_compatible", "openai-compatible"])
def test_registry_backend_aliases_and_explicit_family(backend: str) -> None:
    extractor = build_extractor(
        {"backend": backend, "base_url": "http://x/v1", "model": "qwen2.5", "family": "Qwen"}
    )
    assert isinstance(extractor, OpenAICompatibleExtractor)
    assert extractor.family == "Qwen" and extractor.base_url == "http://x/v1"
    assert extractor.timeout == 60.0  # default when the config has none


@pytest.mark.parametrize(
    ("config", "needs"),
    [
        ({}, "base_url and model"),
        ({"base_url": "http://x/v1"}, "model"),
        ({"model": "qwen2.5"}, "base_url"),
        ({"base_url": "  ", "model": "qwen2.5"}, "base_url"),
    ],
)
def test_registry_config_errors_name_what_is_missing(config: dict, needs: str) -> None:
    with pytest.raises(ExtractorConfigError, match=f"needs {needs} ") as exc:
        build_extractor({"backend": "openai", **config})
    assert "SPANPROOF_EXTRACTOR_" in str(exc.value)


@pytest.mark.parametrize("timeout", ["soon", -1])
def test_registry_rejects_bad_timeouts(timeout: Any) -> None:
    with pytest.raises(ExtractorConfigError, match="timeout"):
        build_extractor(
            {"backend": "openai", "base_url": "http://x", "model": "m", "timeout": timeout}
        )


# -- ingest: an unavailable extractor is that item's error --------------------------------


def test_ingest_records_an_unavailable_extractor_as_the_items_error(
    workspace, settings, django_capture_on_commit_callbacks
) -> None:
    from verifier.models import Claim, IngestStatus
    from verifier.services.ingest_create import SourceUpload, ingest_job_create

    down = "Fishing boats leave the harbour before dawn each morning in summer."

    def reply(request, call):
        chunk = _chunk_of(request)
        if "Fishing boats" in chunk:
            return 503, json.dumps({"error": "overloaded"})
        return 200, completion(_claims(GOOD))

    with ChatServer(reply) as server:
        settings.SPANPROOF_EXTRACTOR = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "qwen2.5-7b-instruct",
            "timeout": 5,
        }
        with django_capture_on_commit_callbacks(execute=True):
            job = ingest_job_create(
                workspace=workspace,
                sources=[
                    SourceUpload(ref="source:delta", text=TEXT, title="delta"),
                    SourceUpload(ref="source:harbour", text=down, title="harbour"),
                ],
            )
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED
    assert job.progress["extract"]["done"] == 1 and job.progress["extract"]["failed"] == 1
    [error] = job.errors
    assert error["stage"] == "extract" and error["item"].startswith("version:")
    assert error["error"].startswith("ExtractorUnavailable: ") and "http 503" in error["error"]
    claims = Claim.objects.filter(ingest_job=job)
    assert sorted(c.submitted_quote for c in claims) == sorted(e["quote"] for e in GOOD)
    assert {c.source.ref for c in claims} == {"source:delta"}
