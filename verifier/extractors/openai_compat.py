"""An extractor behind any OpenAI-compatible ``/chat/completions`` endpoint (vLLM, Ollama,
llama.cpp server, hosted APIs).

The model is asked for strict JSON ``{"claims": [{"text", "quote"}]}``: atomic declarative
claims, each with the passage that states it copied verbatim. Long texts are split into
chunks (whole paragraphs, at most ``max_chunk_chars`` each; an overlong paragraph is cut
at sentence ends) and every chunk is sent on its own.

The model's answer is validated, never trusted: code fences are stripped, unparseable
JSON, wrong shapes, non-string or empty fields and quotes that do not occur in the input
are dropped (logged, not fatal). A quote that matches only up to whitespace (a hard line
break the model wrote as a space) is replaced by the input's own text, so every returned
quote is a verbatim slice of the input. Identical claims are returned once.

Transport failures (connection errors, timeouts, HTTP errors, a response that is not a
chat completion) raise ``ExtractorUnavailable``: the ingest stage records it as that
item's error and goes on. No Django imports.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import requests

from verifier.extractors.base import ExtractedClaim
from verifier.judges.openai_compat import family_from_model

logger = logging.getLogger(__name__)

PROMPT_VERSION = 1
DEFAULT_TIMEOUT_SECONDS = 60.0
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
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_answer(content: str) -> list[Any]:
    """The raw ``claims`` entries of one completion's text. Raises ``ValueError`` if the
    answer is not JSON or has no claims list."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("answer is not JSON") from None
        try:
            data = json.loads(text[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"answer is not JSON: {exc.msg}") from None
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
    """(claims whose fields are strings and whose quote occurs in ``text``, dropped count)."""
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
        if not claim_text or verbatim is None:
            dropped += 1
            continue
        claims.append(ExtractedClaim(text=claim_text, quote=verbatim))
    return claims, dropped


class OpenAICompatibleExtractor:
    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        family: str = "",
        timeout: float | None = None,
        max_chunk_chars: int = DEFAULT_MAX_CHUNK_CHARS,
        json_mode: bool = True,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = model
        self.family = family or family_from_model(model)
        self.api_key = api_key
        self.timeout = timeout or DEFAULT_TIMEOUT_SECONDS
        self.max_chunk_chars = max(MIN_CHUNK_CHARS, int(max_chunk_chars))
        self.json_mode = json_mode
        self._session = session or requests.Session()

    # -- transport -------------------------------------------------------------------
    def _unavailable(self, reason: str) -> ExtractorUnavailable:
        return ExtractorUnavailable(
            f"extractor {self.model!r} at {self.base_url}/chat/completions: {reason}"
        )

    def _post(self, chunk: str) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": USER_TEMPLATE.format(text=chunk)},
            ],
            "temperature": 0.0,
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}/chat/completions"
        try:
            response = self._session.post(url, json=body, headers=headers, timeout=self.timeout)
        except requests.Timeout as exc:
            raise self._unavailable(f"timeout after {self.timeout:g}s") from exc
        except requests.RequestException as exc:
            raise self._unavailable(f"request failed: {type(exc).__name__}") from exc
        if response.status_code == 400 and self.json_mode and "response_format" in response.text:
            self.json_mode = False  # server does not support JSON mode: ask without it
            return self._post(chunk)
        if response.status_code >= 400:
            raise self._unavailable(f"http {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise self._unavailable("response is not a chat completion") from exc
        if not isinstance(content, str):
            raise self._unavailable("response has no message content")
        return content

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
