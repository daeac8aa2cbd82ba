"""An extractor behind any OpenAI-compatible ``/chat/completions`` endpoint (vLLM, Ollama,
llama.cpp server, hosted APIs).

The model is asked for strict JSON ``{"claims": [{"text", "quote"}]}``: atomic declarative
claims, each with the passage that states it copied verbatim. Long texts are split into
chunks (whole paragraphs, at most ``max_chunk_chars`` each; an overlong paragraph is cut
at sentence ends) and every chunk is sent on its own.

The model's answer is validated, never trusted: code fences are stripped, unparseable
JSON, wrong shapes, non-string or empty fields, claim texts PostgreSQL cannot store (a NUL
or a lone surrogate) and quotes that do not occur in the input are dropped (logged, not
fatal). A quote that matches only up to whitespace (a hard line break the model wrote as
a space) is replaced by the input's own text, so every returned quote is a verbatim
slice of the input. Identical claims are returned once.

Transport failures (connection errors, timeouts, HTTP errors, a response that is not a
chat completion) raise ``ExtractorUnavailable``: the ingest stage records it as that
item's error and goes on. No Django imports.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Unpack

from verifier.chat_completions import (
    ChatCompletionsModel,
    ChatModelOptions,
    ChatUnavailable,
    load_json_answer,
)
from verifier.extractors.base import ExtractedClaim
from verifier.untrusted_input import text_problem

logger = logging.getLogger(__name__)

PROMPT_VERSION = 1
DEFAULT_MAX_CHUNK_CHARS = 6000
MIN_CHUNK_CHARS = 200

SYSTEM_PROMPT = """You extract factual claims from a text. A claim is one atomic, \
declarative statement that the text itself asserts:
- one fact per claim: split sentences that state several facts;
- self-contained: replace pronouns with the names they refer to in the text;
- faithful: keep hedges, quantifiers, numbers, dates, units and negations exactly as \
written ("may", "some", "about", "not"); add nothing the text does not say;
- skip questions, instructions, headings, and opinions about the text itself.

For every claim give "quote": the shortest passage of the text that states it, copied \
character for character (same words, spelling, punctuation and capitalisation). Never \
paraphrase, abbreviate with "...", or join separate passages in one quote.

Answer with JSON only, no prose, exactly:
{"claims": [{"text": "<the claim as one declarative sentence>", "quote": "<verbatim \
passage of the text>"}]}
If the text asserts nothing, answer {"claims": []}."""

USER_TEMPLATE = "Extract the claims from the text between the markers.\n<<<TEXT\n{text}\nTEXT>>>"


class ExtractorUnavailable(RuntimeError):
    """The extractor service could not be reached or did not answer the protocol."""


# -- chunking --------------------------------------------------------------------------
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*\s+")
_WHITESPACE = re.compile(r"\s+")


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _pieces(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Cut one overlong paragraph at the last sentence end (else whitespace, else
    hard) before ``limit`` characters."""
    out: list[tuple[int, int]] = []
    while end - start > limit:
        window = text[start : start + limit]
        cut = 0
        for match in _SENTENCE_END.finditer(window):
            cut = match.end()
        if cut <= 0:
            spaces = [m.end() for m in _WHITESPACE.finditer(window)]
            cut = spaces[-1] if spaces and spaces[-1] < limit else limit
        piece = _trimmed(text, start, start + cut)
        if piece[0] < piece[1]:
            out.append(piece)
        start, end = _trimmed(text, start + cut, end)
    if start < end:
        out.append((start, end))
    return out


def split_chunks(text: str, max_chars: int = DEFAULT_MAX_CHUNK_CHARS) -> list[str]:
    """Slices of ``text`` of at most ``max_chars`` characters, made of whole paragraphs
    where possible. Each chunk is verbatim text of the input."""
    limit = max(MIN_CHUNK_CHARS, int(max_chars))
    paragraphs: list[tuple[int, int]] = []
    cursor = 0
    for match in [*_PARAGRAPH_BREAK.finditer(text), None]:
        stop = match.start() if match else len(text)
        start, end = _trimmed(text, cursor, stop)
        if start < end:
            paragraphs.extend(_pieces(text, start, end, limit))
        if match:
            cursor = match.end()
    chunks: list[str] = []
    first: tuple[int, int] | None = None
    last_end = 0
    for start, end in paragraphs:
        if first is not None and end - first[0] > limit:
            chunks.append(text[first[0] : last_end])
            first = None
        if first is None:
            first = (start, end)
        last_end = end
    if first is not None:
        chunks.append(text[first[0] : last_end])
    return chunks


# -- answer parsing --------------------------------------------------------------------
def parse_answer(content: str) -> list[Any]:
    """The raw ``claims`` entries of one completion's text. Raises ``ValueError`` if the
    answer is not JSON or has no claims list."""
    data = load_json_answer(content)
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("claims"), list):
        return list(data["claims"])
    raise ValueError("answer has no 'claims' list")


def locate_quote(quote: str, text: str) -> str | None:
    """The verbatim slice of ``text`` the quote stands for, or None. Exact matches win;
    otherwise runs of whitespace may differ (a line break copied as a space)."""
    quote = quote.strip()
    if not quote:
        return None
    if quote in text:
        return quote
    words = quote.split()
    pattern = r"\s+".join(re.escape(word) for word in words)
    match = re.search(pattern, text)
    return match.group(0) if match else None


def validate_claims(entries: list[Any], text: str) -> tuple[list[ExtractedClaim], int]:
    """(claims whose fields are strings, whose text can be stored (no NUL, no lone
    surrogate) and whose quote occurs in ``text``, dropped count)."""
    claims: list[ExtractedClaim] = []
    dropped = 0
    for entry in entries:
        if not isinstance(entry, dict):
            dropped += 1
            continue
        claim_text, quote = entry.get("text"), entry.get("quote")
        if not isinstance(claim_text, str) or not isinstance(quote, str):
            dropped += 1
            continue
        claim_text = " ".join(claim_text.split())
        verbatim = locate_quote(quote, text)
        if not claim_text or verbatim is None or text_problem(claim_text) is not None:
            dropped += 1
            continue
        claims.append(ExtractedClaim(text=claim_text, quote=verbatim))
    return claims, dropped


class OpenAICompatibleExtractor(ChatCompletionsModel):
    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        max_chunk_chars: int = DEFAULT_MAX_CHUNK_CHARS,
        **options: Unpack[ChatModelOptions],
    ) -> None:
        super().__init__(base_url=base_url, model=model, **options)
        self.max_chunk_chars = max(MIN_CHUNK_CHARS, int(max_chunk_chars))

    # -- transport -------------------------------------------------------------------
    def _post(self, chunk: str) -> str:
        try:
            return self._client.complete(
                system=SYSTEM_PROMPT, user=USER_TEMPLATE.format(text=chunk), temperature=0.0
            )[0]
        except ChatUnavailable as exc:
            raise ExtractorUnavailable(
                f"extractor {self.model!r} at {self._client.shown_url}: {exc}"
            ) from exc

    # -- Extractor protocol ----------------------------------------------------------
    def extract(self, text: str) -> list[ExtractedClaim]:
        claims: list[ExtractedClaim] = []
        seen: set[str] = set()
        for index, chunk in enumerate(split_chunks(text, self.max_chunk_chars)):
            content = self._post(chunk)
            try:
                entries = parse_answer(content)
            except ValueError as exc:
                logger.warning("extractor %s: chunk %d dropped: %s", self.model, index, exc)
                continue
            valid, dropped = validate_claims(entries, text)
            if dropped:
                logger.warning(
                    "extractor %s: chunk %d: %d malformed or unquotable claim(s) dropped",
                    self.model,
                    index,
                    dropped,
                )
            for claim in valid:
                if claim.text in seen:
                    continue
                seen.add(claim.text)
                claims.append(claim)
        return claims
