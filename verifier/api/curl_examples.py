"""One copy-paste ``curl`` example per endpoint family of the HTTP API.

Shown on the console's API keys page and in the API documentation's description (so
Swagger UI, served from the app, carries them too). Plain data, no Django: the settings
module builds the documentation's description from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class CurlExample:
    family: str
    what: str
    command: str


# ``$SPANPROOF`` is the console's address, ``$SPANPROOF_KEY`` an API key of the workspace.
EXAMPLES: Final[tuple[CurlExample, ...]] = (
    CurlExample(
        "Retrieve verified context",
        "Claims relevant to a query, each with its verified-claim envelope; only supported "
        "ones with require_verified.",
        'curl -s -X POST "$SPANPROOF/connect/v1/retrieve" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"query": "where does sediment settle?", "require_verified": true}\'',
    ),
    CurlExample(
        "Traces",
        "Why a response held what it held: the trace a retrieval's trace_ref points at, "
        "and its export for an audit file.",
        'TRACE_ID=$(curl -s -X POST "$SPANPROOF/connect/v1/retrieve" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"query": "where does sediment settle?"}\' \\\n'
        "  | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"trace_id\"])')\n"
        'curl -s "$SPANPROOF/connect/v1/traces/$TRACE_ID/export?format=json" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY"',
    ),
    CurlExample(
        "Sources and claims",
        "Store a source's text (a new version when it changed), then read a claim.",
        'curl -s -X POST "$SPANPROOF/connect/v1/sources" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"ref": "source:delta", "text": "Sediment settles where the current '
        "slows.\"}'\n"
        'curl -s "$SPANPROOF/connect/v1/claims?state=unverified" '
        '-H "Authorization: Bearer $SPANPROOF_KEY"',
    ),
    CurlExample(
        "Verify claims you have",
        "Bind and judge claims against the sources they cite; wait=0 answers a job to poll.",
        'curl -s -X POST "$SPANPROOF/connect/v1/claims/verify" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"claims": [{"text": "Sediment settles where the current slows.", '
        '"source": "source:delta"}]}\'',
    ),
    CurlExample(
        "Ingest jobs",
        "Upload sources for extraction, binding and judging; poll the job for its stages "
        "and quality report.",
        'curl -s -X POST "$SPANPROOF/connect/v1/ingest-jobs" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"sources": [{"ref": "source:delta", "text": "Sediment settles where the '
        "current slows.\"}]}'",
    ),
    CurlExample(
        "Verification rules",
        "The rule set active for the workspace (its weights, thresholds and policies).",
        'curl -s "$SPANPROOF/connect/v1/verification-rules" '
        '-H "Authorization: Bearer $SPANPROOF_KEY"',
    ),
    CurlExample(
        "RAG answer audit",
        "Check an answer claim by claim against the chunks it was given (JSONL).",
        'curl -s -X POST "$SPANPROOF/connect/v1/rag/audit" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"answer": "HNSW builds a graph [c1].", "chunks": "{\\"id\\": \\"c1\\", '
        '\\"text\\": \\"HNSW builds a proximity graph.\\"}"}\'',
    ),
    CurlExample(
        "Memory claims",
        "Check what an agent says it said earlier against the transcript.",
        'curl -s -X POST "$SPANPROOF/connect/v1/memory/verify" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"agent": "agent", "message": "I said \\"I will send the draft.\\"", '
        '"transcript": [{"speaker": "agent", "text": "I will send the draft."}]}\'',
    ),
    CurlExample(
        "Claim-verification worker",
        "Verify one free-text claim against the whole corpus, with the evidence that decided.",
        'curl -s -X POST "$SPANPROOF/worker/verify" \\\n'
        '  -H "Authorization: Bearer $SPANPROOF_KEY" -H "Content-Type: application/json" \\\n'
        '  -d \'{"job_id": "try-1", "claim": "Sediment settles where the current slows."}\'',
    ),
)


def examples_markdown() -> str:
    """The examples as markdown, for the API documentation's description."""
    parts = [
        "## Try it with curl",
        "Set `SPANPROOF` to this server's address and `SPANPROOF_KEY` to an API key of your "
        "workspace (an admin makes one on the console's API keys page).",
    ]
    for example in EXAMPLES:
        parts.append(f"### {example.family}\n{example.what}\n\n```sh\n{example.command}\n```")
    return "\n\n".join(parts)
