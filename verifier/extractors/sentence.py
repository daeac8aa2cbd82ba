"""The offline default extractor: every declarative sentence is a claim.

Rule-based, deterministic, no model. Skips questions, exclamations, imperatives,
headings (Markdown ``#``, lines without final punctuation, lines ending in ``:``) and
short fragments; strips bullet and numbering markers. The quote is the sentence exactly
as it appears in the text (internal line breaks included), so ``quote in text`` always
holds. Paragraphs, list items and headings are found here; the sentences inside one come
from ``verifier.text.sentences.block_sentence_spans``.
"""

from __future__ import annotations

import re

from verifier.extractors.base import MAX_CLAIM_CHARS, ExtractedClaim
from verifier.model_config import SENTENCE_EXTRACTOR_FAMILY
from verifier.text.sentences import block_sentence_spans
from verifier.text.words import LETTER_WORD

MODEL_ID = "spanproof-sentence-extractor-v1"
FAMILY = SENTENCE_EXTRACTOR_FAMILY
MIN_WORDS = 4
MIN_CHARS = 20
UNTERMINATED_LINE_MIN_WORDS = 8  # a line without final punctuation shorter than this is a heading

IMPERATIVE_VERBS = frozenset(
    [
        "add",
        "avoid",
        "be",
        "call",
        "check",
        "choose",
        "click",
        "consider",
        "contact",
        "copy",
        "create",
        "delete",
        "do",
        "don't",
        "download",
        "ensure",
        "enter",
        "find",
        "follow",
        "get",
        "give",
        "go",
        "imagine",
        "install",
        "keep",
        "let",
        "look",
        "make",
        "note",
        "open",
        "please",
        "press",
        "read",
        "refer",
        "remember",
        "remove",
        "run",
        "save",
        "see",
        "select",
        "send",
        "set",
        "sign",
        "start",
        "stop",
        "take",
        "tell",
        "try",
        "type",
        "use",
        "visit",
        "wait",
        "write",
    ]
)
# Words are ``LETTER_WORD`` runs: scripts written without spaces between words (Chinese,
# Japanese, Thai) give few, long runs, and their sentence stops are not split on
# (``block_sentence_spans``).
# Closing quotes and brackets after a sentence's last word, in the scripts' own styles.
CLOSERS = "\"'”’“»」』）)] "
# The last character of a question, exclamation or label: Latin, Greek (U+037E), Arabic
# and full-width forms.
NOT_STATEMENT_ENDS = "?!:;,\u037e\u061f\u061b\u060c\uff1f\uff01\uff1a\uff1b\uff0c"
BULLET = re.compile(r"\s*(?:[-*•‣◦▪–—+>]|\(?\d{1,3}[.)]|\(?[a-zа-яёα-ω][.)])\s+")
HEADING = re.compile(r"^\s*#{1,6}\s")
# A line that ends a sentence or a clause (else a short line is a heading).
TERMINATED_LINE = re.compile(f"[.…{re.escape(NOT_STATEMENT_ENDS + CLOSERS.strip())}]\\s*$")
# A UTF-8 file may start with a byte-order mark: it stays in the stored text (the version's
# hash is the file's), but no claim's text or quote starts with it.
BOM = "\ufeff"


def _blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of paragraphs and of list items / headings, which end at line breaks."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    prev_end = 0
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        # the text's byte-order mark is not part of its first line (a heading or a list
        # item there is still one); offsets stay those of the text
        skip = 1 if pos == 0 and body.startswith(BOM) else 0
        body = body[skip:]
        line_start, line_end = pos + skip, pos + skip + len(body)
        pos += len(line)
        standalone = bool(BULLET.match(body) or HEADING.match(body))
        if not body.strip() or standalone:
            if start is not None:
                out.append((start, prev_end))
                start = None
            if standalone:
                out.append((line_start, line_end))
            continue
        if start is None:
            start = line_start
        prev_end = line_end
        if not TERMINATED_LINE.search(body) and len(body.split()) < UNTERMINATED_LINE_MIN_WORDS:
            # a short unterminated line is a heading: close it as its own block
            out.append((start, prev_end))
            start = None
    if start is not None:
        out.append((start, prev_end))
    return out


def _trim(text: str, start: int, end: int, *, bullet: bool = False) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    marker = BULLET.match(text, start, end) if bullet and start < end else None
    if marker and marker.start() == start:
        start = marker.end()
    return start, end


def _is_declarative(sentence: str) -> bool:
    stripped = sentence.rstrip(CLOSERS)
    if not stripped or stripped[-1] in NOT_STATEMENT_ENDS:
        return False
    if stripped[-1] not in ".…" and len(sentence.split()) < UNTERMINATED_LINE_MIN_WORDS:
        return False  # heading or label
    if len(sentence) > MAX_CLAIM_CHARS:
        return False  # a passage with no sentence ends (a line of 2 MB), not one claim
    words = LETTER_WORD.findall(sentence)
    if len(words) < MIN_WORDS or len(sentence) < MIN_CHARS:
        return False
    first = words[0].lower().replace("’", "'")
    if first in IMPERATIVE_VERBS:
        return False
    return not HEADING.match(sentence)


class SentenceExtractor:
    model_id = MODEL_ID
    family = FAMILY

    def extract(self, text: str) -> list[ExtractedClaim]:
        claims: list[ExtractedClaim] = []
        for block_start, block_end in _blocks(text):
            if HEADING.match(text, block_start):
                continue
            b_start, b_end = _trim(text, block_start, block_end, bullet=True)
            for s_start, s_end in block_sentence_spans(text, b_start, b_end):
                start, end = _trim(text, s_start, s_end)
                quote = text[start:end]
                if not quote or not _is_declarative(quote):
                    continue
                claims.append(ExtractedClaim(text=" ".join(quote.split()), quote=quote))
        return claims
