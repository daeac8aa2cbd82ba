from __future__ import annotations

import json

import pytest

from tests.verifier.judges.chat_server import ChatServer, answer, completion, items_of
from verifier.judges import JudgeItem, build_judge, judge_items
from verifier.judges.openai_compat import (
    MAX_BATCH_SIZE,
    PROMPT_VERSION,
    OpenAICompatibleJudge,
    clamp_batch_size,
    parse_answer,
)


def _items(n: int) -> list[JudgeItem]:
    return [JudgeItem(key=f"k{i}", claim=f"Claim {i}.", spans=(f"Span {i}.",)) for i in range(n)]


def _judge(server: ChatServer, **kwargs) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        base_url=server.base_url, model="llama-3.3-70b", api_key="sk-test", **kwargs
    )


def _all_entailed(request, call):
    results = [
        {"key": it["key"], "label": "entailed", "confidence": 0.9, "note": "ok"}
        for it in items_of(request)
    ]
    return 200, completion(answer(results))


def test_well_behaved_server_answers_every_item_in_order() -> None:
    with ChatServer(_all_entailed) as server:
        judge = _judge(server)
        results = judge_items(judge, _items(3))
    assert [r.key for r in results] == ["k0", "k1", "k2"]
    assert {r.label for r in results} == {"entailed"}
    assert all(r.confidence == 0.9 for r in results)
    request = server.requests[0]
    assert request["model"] == "llama-3.3-70b"
    assert request["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    assert judge.prompt_version == PROMPT_VERSION
    assert judge.family == "llama"


def test_omitted_items_are_reasked_once_and_only_them() -> None:
    def reply(request, call):
        items = items_of(request)
        if call == 0:  # answer only the first item
            items = items[:1]
        elif call == 1:  # the re-ask answers one of the two omitted items
            items = [it for it in items if it["key"] == "k1"]
        results = [
            {"key": it["key"], "label": "abstained", "confidence": 0.4, "note": "n"} for it in items
        ]
        return 200, completion(answer(results))

    with ChatServer(reply) as server:
        results = judge_items(_judge(server), _items(3))
    assert len(server.requests) == 2
    assert [it["key"] for it in items_of(server.requests[1])] == ["k1", "k2"]
    assert [(r.key, r.label) for r in results] == [
        ("k0", "abstained"),
        ("k1", "abstained"),
        ("k2", "coverage_gap"),
    ]
    assert results[2].note == "omitted"


def test_omission_never_becomes_a_pass() -> None:
    with ChatServer(lambda request, call: (200, completion(answer([])))) as server:
        results = judge_items(_judge(server), _items(2))
    assert [r.label for r in results] == ["coverage_gap", "coverage_gap"]
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "content",
    ["I think they are all entailed!", '```json\n{"results": [\n```', "", "[1, 2"],
)
def test_garbage_answer_is_a_coverage_gap_for_the_batch(content: str) -> None:
    with ChatServer(lambda request, call: (200, completion(content))) as server:
        results = judge_items(_judge(server), _items(2))
    assert [r.label for r in results] == ["coverage_gap", "coverage_gap"]
    assert all(r.note.startswith("malformed_answer") for r in results)
    assert len(server.requests) == 1  # not an omission: no re-ask


def test_non_chat_completion_body_is_a_transport_gap() -> None:
    with ChatServer(lambda request, call: (200, "<html>proxy error</html>")) as server:
        results = judge_items(_judge(server), _items(1))
    assert results[0].label == "coverage_gap"
    assert results[0].note.startswith("transport_error")


def test_code_fenced_answer_is_parsed() -> None:
    def reply(request, call):
        results = [
            {"key": it["key"], "label": "contradicted", "confidence": 0.8, "note": "neg"}
            for it in items_of(request)
        ]
        return 200, completion("```json\n" + answer(results) + "\n```")

    with ChatServer(reply) as server:
        results = judge_items(_judge(server), _items(2))
    assert [r.label for r in results] == ["contradicted", "contradicted"]


def test_unknown_labels_bad_confidence_and_duplicates_hit_exactly_those_items() -> None:
    def reply(request, call):
        results = [
            {"key": "k0", "label": "probably", "confidence": 0.9, "note": ""},
            {"key": "k1", "label": "entailed", "confidence": 1.7, "note": ""},
            {"key": "k2", "label": "entailed", "confidence": "very", "note": ""},
            {"key": "k3", "label": "entailed", "confidence": 0.9, "note": ""},
            {"key": "k3", "label": "entailed", "confidence": 0.9, "note": ""},
            {"key": "k4", "label": "coverage_gap", "confidence": 0.9, "note": ""},
            {"key": "k5", "label": "Entailed", "confidence": 0.75, "note": "fine"},
            {"key": "zzz", "label": "entailed", "confidence": 0.9, "note": "stranger"},
        ]
        return 200, completion(answer(results))

    with ChatServer(reply) as server:
        results = judge_items(_judge(server), _items(6))
    by_key = {r.key: r for r in results}
    assert by_key["k0"].label == "coverage_gap" and "unknown_label" in by_key["k0"].note
    assert by_key["k1"].label == "coverage_gap" and "confidence_out_of_range" in by_key["k1"].note
    assert by_key["k2"].label == "coverage_gap" and "malformed_confidence" in by_key["k2"].note
    assert by_key["k3"].label == "coverage_gap" and "duplicate_key" in by_key["k3"].note
    assert by_key["k4"].label == "coverage_gap" and "unknown_label" in by_key["k4"].note
    assert by_key["k5"].label == "entailed" and by_key["k5"].confidence == 0.75
    assert len(server.requests) == 1


def test_http_500_is_a_coverage_gap_for_that_batch_only() -> None:
    def reply(request, call):
        if call == 0:
            return 500, json.dumps({"error": "boom"})
        return _all_entailed(request, call)

    with ChatServer(reply) as server:
        results = judge_items(_judge(server), _items(3), batch_size=2)
    assert [r.label for r in results] == ["coverage_gap", "coverage_gap", "entailed"]
    assert results[0].note == "transport_error: http 500"


def test_timeout_is_a_coverage_gap() -> None:
    with ChatServer(lambda request, call: (*_all_entailed(request, call), 1.5)) as server:
        results = judge_items(_judge(server, timeout=0.3), _items(2))
    assert [r.label for r in results] == ["coverage_gap", "coverage_gap"]
    assert results[0].note.startswith("transport_error: timeout")


def test_unreachable_server_is_a_coverage_gap() -> None:
    with ChatServer(_all_entailed) as server:
        url = server.base_url
    judge = OpenAICompatibleJudge(base_url=url, model="m", timeout=1)
    results = judge_items(judge, _items(1))
    assert results[0].label == "coverage_gap"


def test_server_without_json_mode_is_retried_without_response_format() -> None:
    def reply(request, call):
        if "response_format" in request:
            return 400, json.dumps({"error": "response_format is not supported"})
        return _all_entailed(request, call)

    with ChatServer(reply) as server:
        results = judge_items(_judge(server), _items(1))
    assert results[0].label == "entailed"
    assert "response_format" not in server.requests[-1]


def _voting_server(votes: dict[str, list[str]], *, honour_n: bool):
    def reply(request, call):
        n = request.get("n", 1) if honour_n else 1
        contents = []
        for sample in range(n):
            index = sample if honour_n else call
            results = [
                {"key": k, "label": labels[index], "confidence": 0.6 + 0.1 * index, "note": "v"}
                for k, labels in votes.items()
                if k in {it["key"] for it in items_of(request)}
            ]
            contents.append(answer(results))
        return 200, completion(*contents)

    return reply


@pytest.mark.parametrize("honour_n", [True, False])
def test_self_consistency_majority_and_disagreement(honour_n: bool) -> None:
    votes = {
        "k0": ["entailed", "entailed", "abstained"],
        "k1": ["entailed", "contradicted", "abstained"],
    }
    with ChatServer(_voting_server(votes, honour_n=honour_n)) as server:
        judge = _judge(server, samples=3)
        results = judge_items(judge, _items(2))
    assert results[0].label == "entailed"
    assert results[0].confidence == pytest.approx((0.6 + 0.7) / 2)
    assert results[1].label == "abstained"
    assert results[1].note.startswith("self_consistency_disagreement")
    assert len(server.requests) == (1 if honour_n else 3)
    assert server.requests[0]["temperature"] > 0


def test_self_consistency_needs_a_strict_majority_of_all_samples() -> None:
    votes = {"k0": ["entailed", "entailed", "contradicted", "abstained"]}
    with ChatServer(_voting_server(votes, honour_n=True)) as server:
        results = judge_items(_judge(server, samples=4), _items(1))
    assert results[0].label == "abstained"


def test_batch_size_is_clamped_and_used() -> None:
    assert clamp_batch_size(None) == 10
    assert clamp_batch_size(0) == 10
    assert clamp_batch_size(-3) == 1
    assert clamp_batch_size(500) == MAX_BATCH_SIZE
    with ChatServer(_all_entailed) as server:
        judge = _judge(server, batch_size=2)
        judge_items(judge, _items(5))
    assert [len(items_of(r)) for r in server.requests] == [2, 2, 1]


def test_build_judge_openai_backend() -> None:
    judge = build_judge(
        {
            "backend": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "qwen2.5-7b-instruct",
            "family": "qwen",
            "timeout": 5,
            "batch_size": 40,
            "samples": 3,
        }
    )
    assert isinstance(judge, OpenAICompatibleJudge)
    assert (judge.model_id, judge.family, judge.batch_size, judge.samples) == (
        "qwen2.5-7b-instruct",
        "qwen",
        MAX_BATCH_SIZE,
        3,
    )


def test_parse_answer_accepts_prose_around_json_and_bare_lists() -> None:
    text = 'Sure! {"results": [{"key": "a", "label": "entailed", "confidence": 0.5}]} Done.'
    assert parse_answer(text)[0].key == "a"
    assert parse_answer('[{"key": 1, "label": "abstained", "confidence": 0}]')[0].key == "1"
    with pytest.raises(ValueError):
        parse_answer('{"verdicts": []}')
