"""Turning an upload into source text: plain text and Markdown are kept as they are
(the sentence extractor skips Markdown headings); HTML is reduced to its text, block
elements becoming paragraph breaks, ``<script>``/``<style>`` dropped. The stored source
version IS that text, so every quote and offset refers to exactly what was stored."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Final

FORMATS: Final = ("text", "markdown", "html")
_BLOCK_TAGS: Final = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    ]
)
_SKIP_TAGS: Final = frozenset({"script", "style", "head", "template", "noscript"})
_MANY_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts).replace("\r\n", "\n").replace("\xa0", " ")
    text = _TRAILING_SPACE.sub("\n", text)
    return _MANY_BLANK_LINES.sub("\n\n", text).strip()


def format_for_filename(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith((".html", ".htm", ".xhtml")):
        return "html"
    if lowered.endswith((".md", ".markdown")):
        return "markdown"
    return "text"


def source_text(raw: str, fmt: str) -> str:
    """The text to store as the source version for an upload in format ``fmt``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return html_to_text(raw) if fmt == "html" else raw
