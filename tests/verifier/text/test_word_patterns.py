"""Word patterns and synonym groups live in the text layer (``verifier.text.words``,
``verifier.text.synonyms``): no module outside it compiles a word or name pattern of its
own or keeps a synonym table, and the readers cut text as they did before the move."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from verifier.text import words
from verifier.text.synonyms import JUDGE_SYNONYM_GROUPS, MEMORY_SYNONYM_GROUPS, MEMORY_SYNONYMS

ROOT = Path(__file__).resolve().parents[3]
TEXT_LAYER = ROOT / "verifier" / "text"
# Module-level names that hold a word or name pattern, or a synonym table.
WORD_NAME = re.compile(r"^_?(?:WORD|TOKEN|NAME|LETTER|CAPITALI[SZ]ED_RUN)(?:_RE)?$|WORD_RE$")
SYNONYM_NAME = re.compile(r"SYNONYM")
# Being rewritten by another part of issue 43: it switches to ``words.RETRIEVAL_TERM``.
PENDING: set[str] = set()


def _strays() -> list[str]:
    found = []
    for top in ("verifier", "review", "audit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if path.is_relative_to(TEXT_LAYER) or name in PENDING:
                continue
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign):
                    targets, value = [node.target], node.value
                for target in targets:
                    if not isinstance(target, ast.Name):
                        continue
                    compiled = isinstance(value, ast.Call) and ast.unparse(value.func) == (
                        "re.compile"
                    )
                    if (compiled and WORD_NAME.search(target.id)) or (
                        SYNONYM_NAME.search(target.id) and isinstance(value, ast.Tuple)
                    ):
                        found.append(f"{name}:{target.id}")
    return found


def test_no_word_pattern_or_synonym_table_outside_the_text_layer() -> None:
    assert _strays() == []


def test_the_patterns_cut_text_as_their_readers_did() -> None:
    text = "Dr. O'Neil's co-founded U.S. firm rose ~40% to $3.5m at 10:30; Bank of the North"
    assert words.JUDGE_TOKEN.findall(text)[:9] == [
        *("Dr", "O'Neil's", "co-founded", "U.S", "firm", "rose", "40", "%", "to"),
    ]
    assert words.LATIN_WORD_OR_NUMBER.findall("it's 3.5 well-known") == [
        "it's",
        "3.5",
        "well-known",
    ]
    assert words.CLAIM_TOKEN.findall(text)[6:10] == ["~", "40%", "to", "3.5m"]
    assert words.MEMORY_TOKEN.findall("we'll meet at 10:30") == ["we'll", "meet", "at", "10:30"]
    assert words.NAME_WITH_CONNECTORS.findall("at the Bank of England") == ["Bank of England"]
    assert words.MULTIWORD_NAME.findall("Marie Curie met Pierre") == ["Marie Curie"]
    assert words.CAPITALISED_RUN.findall("Marie Curie met Pierre") == ["Marie Curie", "Pierre"]
    assert "".join(words.WORD_MARK_OR_SPACE.findall(text)) == text


def test_the_synonym_groups_map_to_their_first_word() -> None:
    assert ("buy", "purchase", "acquire") in JUDGE_SYNONYM_GROUPS
    assert MEMORY_SYNONYMS["purchase"] == "buy"
    assert all(MEMORY_SYNONYMS[group[0]] == group[0] for group in MEMORY_SYNONYM_GROUPS)
