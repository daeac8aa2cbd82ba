"""The API examples the docs give match the API they call.

``test_doc_references.py`` checks that what the docs *name* exists; this file checks the
examples a reader copies, against the OpenAPI schema the server serves:

* every ``curl`` command of README.md, docs/*.md and ``verifier/api/curl_examples.py``
  (the examples the console and Swagger UI show): for an API path, the schema has that
  operation with the command's method (``-X``, else POST with ``-d``, else GET), each
  query parameter is one the operation declares, and the ``-d`` body is JSON whose every
  key (nested objects and arrays of objects included) is a property of the operation's
  request schema; another path (``/healthz``) resolves to a route;
* every ``requests.get`` / ``requests.post`` of a docs' Python block: the same for its
  URL and its ``json=`` body, and each field the block reads from an answer
  (``body["job"]["url"]``, ``row.get("error")``) is a property of that operation's
  answer schema;
* the request and answer examples the docs write out as JSON (``ANSWER_EXAMPLES``) name
  only properties of their schema, and every property the schema requires;
* the prose that lists an answer's fields (``FIELD_LISTS``) names, in backticks, every
  property the schema requires, so a field added or renamed in the code shows here.

So a renamed field or path fails here rather than in a newcomer's shell.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.urls import Resolver404
from django.urls import resolve as url_resolve
from drf_spectacular.generators import SchemaGenerator

from verifier.api.curl_examples import EXAMPLES

ROOT: Final = Path(__file__).resolve().parent.parent.parent
DOCS: Final = (ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE: Final = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
API_PREFIXES: Final = ("/connect/v1/", "/worker/")
# Where a path starts in a command's URL argument ("http://h:8000/…", "$SPANPROOF/…").
PATH_START: Final = re.compile(r"/(?:connect/v1/|worker/|healthz)")
# A path segment a reader fills in: "$TRACE_ID", "${ID}", "<id>", "{id}", "…".
PLACEHOLDER: Final = re.compile(r"\$\{?\w+\}?|<\w+>|\{\w+\}|…")
# JSON keys of a written-out example: a quoted name after "{" or ",", before ":", ",", "}"
# or "?" (an optional field); a quoted value ("faithful" | "partial", ["c9"]) is not one.
EXAMPLE_KEY: Final = re.compile(r'[{,]\s*"([a-z_][a-z0-9_]*)"\??(?=\s*[:,}\]])')
BODY_FLAGS: Final = frozenset({"-d", "--data", "--data-raw", "--data-binary"})
SEPARATORS: Final = "|();&\n"
VALUE_FLAGS: Final = frozenset({"-H", "--header", "-o", "--output", "-w", "-X", "--request"})


@cache
def schema() -> dict[str, Any]:
    generated: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return generated


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema()["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def alternatives(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The object schemas a value may be: through ``$ref``, ``allOf``, ``oneOf``,
    ``anyOf`` and an array's ``items``."""
    node = resolve(node)
    parts = [*node.get("allOf", ()), *node.get("oneOf", ()), *node.get("anyOf", ())]
    if parts:
        for part in parts:
            yield from alternatives(part)
    elif node.get("type") == "array" and "items" in node:
        yield from alternatives(node["items"])
    else:
        yield node


def properties(node: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The properties a value of this schema may have, or None for a free-form value
    (a ``metadata`` object, a string, a number) whose keys the schema does not name."""
    found: dict[str, dict[str, Any]] = {}
    free = False
    for alt in alternatives(node):
        if "properties" in alt:
            found.update(alt["properties"])
        else:
            free = True
    return None if free and not found else found


def unknown_keys(value: Any, node: dict[str, Any], where: str) -> list[str]:
    """The keys of ``value`` (recursively) that the schema ``node`` does not have."""
    problems: list[str] = []
    if isinstance(value, list):
        for item in value:
            problems += unknown_keys(item, node, where)
    elif isinstance(value, dict):
        props = properties(node)
        if props is None:
            return []
        for key, inner in value.items():
            if key not in props:
                problems.append(f"{where}: field {key!r} is not in the schema")
            else:
                problems += unknown_keys(inner, props[key], f"{where}.{key}")
    return problems


def all_property_names(node: dict[str, Any], seen: set[int] | None = None) -> set[str]:
    """Every property name anywhere in a schema's tree."""
    seen = set() if seen is None else seen
    names: set[str] = set()
    for alt in alternatives(node):
        if id(alt) in seen:
            continue
        seen.add(id(alt))
        for name, inner in alt.get("properties", {}).items():
            names.add(name)
            names |= all_property_names(inner, seen)
        extra = alt.get("additionalProperties")
        if isinstance(extra, dict):
            names |= all_property_names(extra, seen)
    return names


def operation(path: str, method: str) -> tuple[dict[str, Any] | None, str]:
    """The schema's operation for a concrete path, or None and why not."""
    path = PLACEHOLDER.sub("x", path)
    candidates = [
        (pattern, ops)
        for pattern, ops in schema()["paths"].items()
        if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(pattern)), path)
    ]
    if not candidates:
        return None, f"{method} {path}: not in the OpenAPI schema"
    for _pattern, ops in candidates:
        if method.lower() in ops:
            return ops[method.lower()], ""
    return None, f"{method} {path}: the schema has no {method} there"


def request_schema(op: dict[str, Any]) -> dict[str, Any]:
    content = op.get("requestBody", {}).get("content", {})
    node: dict[str, Any] = content.get("application/json", {}).get("schema", {})
    return node


def answer_schemas(op: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        answer["content"]["application/json"]["schema"]
        for status, answer in op.get("responses", {}).items()
        if status.startswith("2") and "application/json" in answer.get("content", {})
    ]


def check_call(
    method: str, url: str, body: Any, where: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The operation a call reaches, and what is wrong with the call."""
    start = PATH_START.search(url)
    if start is None:
        return None, []  # not a call of ours
    parts = urlsplit(url[start.start() :])
    path = parts.path
    if not path.startswith(API_PREFIXES):  # /healthz: a page, not an operation
        try:
            url_resolve(PLACEHOLDER.sub("x", path))
        except Resolver404:
            return None, [f"{where}: {method} {path} resolves to no route"]
        return None, []
    op, why = operation(path, method)
    if op is None:
        return None, [f"{where}: {why}"]
    problems: list[str] = []
    declared = {p["name"] for p in op.get("parameters", ()) if p["in"] == "query"}
    for name, _value in parse_qsl(parts.query, keep_blank_values=True):
        if name not in declared:
            problems.append(f"{where}: {method} {path} declares no query parameter {name!r}")
    if body is not None:
        problems += unknown_keys(body, request_schema(op), f"{where}: {method} {path} body")
    return op, problems


# ---- curl -----------------------------------------------------------------------------


def shell_words(text: str) -> list[str]:
    """A shell snippet's words, continuation lines joined and comments dropped; outside
    quotes, each run of line breaks and ``| ( ) ; &`` is a word of its own (a separator)."""
    lexer = shlex.shlex(text.replace("\\\n", " "), posix=True, punctuation_chars=SEPARATORS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""  # a "#" inside a word ("…#seg-0") is no comment
    words: list[str] = []
    comment = False
    for word in lexer:
        if separator(word):
            comment = comment and "\n" not in word
        elif word.startswith("#"):
            comment = True
        if not comment:
            words.append(word)
    return words


def separator(word: str) -> bool:
    return bool(word) and all(c in SEPARATORS for c in word)


def curl_calls(text: str) -> Iterator[tuple[str, str, str | None]]:
    """``(method, url, body)`` of each ``curl`` the snippet runs."""
    words = shell_words(text)
    for i, word in enumerate(words):
        if word != "curl":
            continue
        method, url, body = "", "", None
        args = iter(words[i + 1 :])
        for arg in args:
            if arg == "curl" or separator(arg):
                break
            if arg in ("-X", "--request"):
                method = next(args, "")
            elif arg in BODY_FLAGS:
                body = next(args, "")
            elif arg in VALUE_FLAGS:
                next(args, None)
            elif not arg.startswith("-") and PATH_START.search(arg):
                url = arg
        if url:
            yield method or ("POST" if body is not None else "GET"), url, body


def curl_problems(text: str, where: str) -> list[str]:
    problems: list[str] = []
    for method, url, raw in curl_calls(text):
        body = None
        if raw is not None:
            try:
                body = json.loads(raw)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: {method} {url}: the body is not JSON ({exc})")
                continue
        problems += check_call(method, url, body, where)[1]
    return problems


# ---- python ---------------------------------------------------------------------------


def leftmost_string(node: ast.expr) -> tuple[str, bool]:
    """A URL argument's text and whether it is the whole URL ("http://h" + path is not)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.BinOp):
        text, _whole = leftmost_string(node.left)
        return text, False
    return "", False


def python_problems(code: str, where: str) -> list[str]:
    tree = ast.parse(code)
    problems: list[str] = []
    answers: list[dict[str, Any]] = []
    for call in ast.walk(tree):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "requests"
            and call.args
        ):
            continue
        url, whole = leftmost_string(call.args[0])
        if not whole:
            continue  # a URL the answer gave: nothing to look up
        body = None
        for keyword in call.keywords:
            if keyword.arg == "json":
                body = ast.literal_eval(keyword.value)
        op, found = check_call(call.func.attr.upper(), url, body, where)
        problems += found
        if op is not None:
            answers += answer_schemas(op)
    if not answers:
        return problems
    known: set[str] = set()
    for answer in answers:
        known |= all_property_names(answer)
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            name = node.slice.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            name = node.args[0].value
        if isinstance(name, str) and name not in known:
            problems.append(f"{where}: reads {name!r}, which no answer of the calls has")
    return problems


# ---- written-out examples -------------------------------------------------------------

# (doc, the heading of its section, the schema component its JSON block shows).
ANSWER_EXAMPLES: Final = (
    ("rag-audit.md", "## Input", "RagAuditRequest"),
    ("rag-audit.md", "## The answer", "RagAuditResponse"),
)


# (doc, the heading of its section, the schema components whose every required field the
# section names in backticks): the prose that lists an answer's fields one by one.
FIELD_LISTS: Final = (
    ("api.md", "## Verifying claims an application already has", ("ClaimVerifyResult",)),
    ("api.md", "## Verifying claims an application already has", ("VerifiedSpan",)),
    ("api.md", "## Activity", ("ActivityEvent", "ActivityActor")),
    ("api.md", "## Sources", ("SourceListItem", "SourceCurrentVersion", "SourceVersion")),
    ("api.md", "## Sources", ("SourceRebindJob",)),
    ("api.md", "## Lists and cursors", ("Judge", "RelationEnd")),
    ("audit-pack.md", "## Making one", ("Output",)),  # the public key's answer
    ("memory-claims.md", "## The API", ("Transcript", "MemoryVerifyResponse")),
    ("memory-claims.md", "## The API", ("MemoryClaimResult",)),
    ("worker-verify.md", "## Response (200)", ("WorkerVerifyResponse", "WorkerEvidenceItem")),
)


def named_in_backticks(text: str) -> set[str]:
    """The names in the prose's code spans (``{id, created_at}`` names two)."""
    prose = FENCE.sub("", text)
    return {
        word
        for span in re.findall(r"`([^`]+)`", prose)
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)
    }


def unnamed_fields(text: str, component: str) -> list[str]:
    node = resolve({"$ref": f"#/components/schemas/{component}"})
    return sorted(set(node.get("required", ())) - named_in_backticks(text))


def section(text: str, heading: str) -> str:
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def example_problems(block: str, component: str, where: str) -> list[str]:
    node = {"$ref": f"#/components/schemas/{component}"}
    keys = set(EXAMPLE_KEY.findall(block))
    known = all_property_names(node)
    problems = [f"{where}: {key!r} is not a field of {component}" for key in sorted(keys - known)]
    required = set(resolve(node).get("required", ()))
    problems += [
        f"{where}: {component} always has {key!r}, which the example leaves out"
        for key in sorted(required - keys)
    ]
    return problems


def doc_blocks(text: str, languages: tuple[str, ...]) -> Iterator[str]:
    for language, body in FENCE.findall(text):
        if language in languages:
            yield body


# ---- the tests ------------------------------------------------------------------------


def test_the_docs_curl_examples_call_what_the_api_has() -> None:
    problems: list[str] = []
    for doc in DOCS:
        for block in doc_blocks(doc.read_text(), ("sh", "bash", "")):
            if re.search(r"\bcurl\b", block):
                problems += curl_problems(block, doc.name)
    assert not problems, problems


def test_the_served_curl_examples_call_what_the_api_has() -> None:
    problems: list[str] = []
    calls = 0
    for example in EXAMPLES:
        calls += len(list(curl_calls(example.command)))
        problems += curl_problems(example.command, example.family)
    assert calls > len(EXAMPLES), "every example is read"  # "Traces" holds two calls
    assert not problems, problems


def test_the_docs_python_examples_call_what_the_api_has() -> None:
    problems: list[str] = []
    blocks = 0
    for doc in DOCS:
        for block in doc_blocks(doc.read_text(), ("python",)):
            blocks += "requests." in block
            problems += python_problems(block, doc.name)
    assert blocks, "docs/api.md's example is read"
    assert not problems, problems


@pytest.mark.parametrize(("doc", "heading", "component"), ANSWER_EXAMPLES)
def test_a_written_out_example_has_its_schemas_fields(
    doc: str, heading: str, component: str
) -> None:
    block = next(doc_blocks(section((ROOT / "docs" / doc).read_text(), heading), ("json",)))
    assert not example_problems(block, component, f"{doc} {heading}")


@pytest.mark.parametrize(("doc", "heading", "components"), FIELD_LISTS)
def test_a_field_list_names_every_field_of_its_answer(
    doc: str, heading: str, components: tuple[str, ...]
) -> None:
    text = section((ROOT / "docs" / doc).read_text(), heading)
    missing = {c: unnamed_fields(text, c) for c in components}
    assert not any(missing.values()), f"{doc} {heading} does not name {missing}"


def test_each_check_finds_what_is_wrong() -> None:
    """The scanners read every form the examples use, so a passing run means something."""
    shell = (
        "curl -s http://127.0.0.1:8000/connect/v1/claims/verfy -d '{}'\n"
        'curl -s "$SPANPROOF/connect/v1/claims/verify" \\\n'
        '  -H \'Content-Type: application/json\' -d \'{"claims": [{"txt": "a"}]}\'\n'
        'curl -s -X DELETE "$SPANPROOF/connect/v1/sources"\n'
        'curl -s "$SPANPROOF/connect/v1/claims?stat=supported"\n'
        'X=$(curl -s $SPANPROOF/connect/v1/retrieve -d \'{"query": "q", "topk": 3}\' | jq)\n'
        'curl -s "$SPANPROOF/connect/v1/traces/$X/exprt"\n'
        "curl -s http://127.0.0.1:8000/healthzz   # a comment\n"
        'curl -s $SPANPROOF/connect/v1/rag/audit -d \'{"answer": "a",}\'\n'
    )
    found = curl_problems(shell, "t")
    assert found[:6] == [
        "t: POST /connect/v1/claims/verfy: the schema has no POST there",  # claims/{id}
        "t: POST /connect/v1/claims/verify body.claims: field 'txt' is not in the schema",
        "t: DELETE /connect/v1/sources: the schema has no DELETE there",
        "t: GET /connect/v1/claims declares no query parameter 'stat'",
        "t: POST /connect/v1/retrieve body: field 'topk' is not in the schema",
        "t: GET /connect/v1/traces/x/exprt: not in the OpenAPI schema",
    ]
    assert found[6] == "t: GET /healthzz resolves to no route"
    assert found[7].startswith("t: POST $SPANPROOF/connect/v1/rag/audit: the body is not JSON")
    assert len(found) == 8
    python = (
        "import requests\n"
        'r = requests.post("http://h/connect/v1/claims/verify", json={"claim": []}).json()\n'
        'print(r["job"]["url"], r["results"][0].get("stat"))\n'
    )
    assert python_problems(python, "p") == [
        "p: POST /connect/v1/claims/verify body: field 'claim' is not in the schema",
        "p: reads 'stat', which no answer of the calls has",
    ]
    answer = '{"claims": [{"span", "verdict", "notes"?}], "verdict": "faithful" | "partial"}'
    assert example_problems(answer, "RagAuditResponse", "a") == [
        "a: 'notes' is not a field of RagAuditResponse",
        "a: RagAuditResponse always has 'trace_id', which the example leaves out",
        "a: RagAuditResponse always has 'unknown_citations', which the example leaves out",
        "a: RagAuditResponse always has 'unsupported', which the example leaves out",
    ]
    listed = "`ActivityEvent`: `{id, created_at, action, target, details}`, `actor` (```json\n```)"
    assert unnamed_fields(listed, "ActivityEvent") == ["action_label"]
