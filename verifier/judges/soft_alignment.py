"""Claim words the lexicon leaves uncovered, matched by MiniLM's contextual reading.

The heuristic judge covers a claim word when the span has the same lemma or a word of
its synonym group (``signals.compare``). A careful paraphrase says whole things in other
words ("pulled back" for "retreated", "livestock" for "cattle") that no table lists.
For a candidate the lexicon almost covers and whose sentence similarity is already high,
each uncovered claim content word is compared with every span content word as
all-MiniLM-L6-v2 reads them in context (the mean of the word's word-piece vectors from
the last layer); a word whose best match reaches ``SOFT_MATCH_MIN`` counts as covered,
and the note names the pair. Only span words the claim does not already say count, and
each reads one claim word at most. It never removes a blocking signal: negation, antonyms,
numbers, names and scope are read as before, on the lexical alignment.

The model object is the embedder's (``verifier.embeddings.get_model``): one copy of the
weights per process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verifier.judges.signals import profile
from verifier.text.words import JUDGE_TOKEN

SOFT_MATCH_MIN = 0.65  # cosine of two words' contextual vectors (docs/heuristic-judge.md)
MAX_PIECES = 256  # MiniLM's window; words past it get no vector and stay uncovered
WORD_BATCH = 16


@dataclass(frozen=True)
class SoftMatch:
    claim_word: str
    span_word: str
    cosine: float


def word_vectors(texts: Sequence[str]) -> list[np.ndarray]:
    """Per text, one unit vector per judge token (``JUDGE_TOKEN`` over the text as
    ``signals.profile`` reads it): the mean of its word pieces' last-layer vectors."""
    import torch

    from verifier.embeddings import get_model

    model = get_model()
    tokenizer, encoder = model.tokenizer, model[0].auto_model
    out: list[np.ndarray] = []
    for start in range(0, len(texts), WORD_BATCH):
        chunk = [t.replace("’", "'") for t in texts[start : start + WORD_BATCH]]
        batch = tokenizer(
            chunk,
            padding=True,
            truncation=True,
            max_length=MAX_PIECES,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = batch.pop("offset_mapping").tolist()
        with torch.no_grad():
            hidden = encoder(**batch).last_hidden_state.numpy()
        for text, pieces, states in zip(chunk, offsets, hidden, strict=True):
            words = [(m.start(), m.end()) for m in JUDGE_TOKEN.finditer(text)]
            vectors = np.zeros((len(words), states.shape[1]), dtype=np.float32)
            for w, (lo, hi) in enumerate(words):
                idx = [k for k, (a, b) in enumerate(pieces) if b > a and a < hi and b > lo]
                if idx:
                    v = states[idx].mean(axis=0)
                    vectors[w] = v / (np.linalg.norm(v) or 1.0)
            out.append(vectors)
    return out


def soft_matches(
    claim_text: str,
    span_text: str,
    uncovered: Sequence[str],
    claim_vectors: np.ndarray,
    span_vectors: np.ndarray,
    threshold: float = SOFT_MATCH_MIN,
) -> tuple[SoftMatch, ...]:
    """The uncovered claim words whose best contextual match in the span's content words
    reaches ``threshold``. Vectors come from ``word_vectors`` of the same two texts."""
    claim, span = profile(claim_text), profile(span_text)
    if len(claim_vectors) != len(claim.tokens) or len(span_vectors) != len(span.tokens):
        return ()  # a tokenization the two readings do not share: no soft match
    wanted = set(uncovered)
    found: list[SoftMatch] = []
    seen: set[str] = set()
    # one reading per span word: a word the claim already says in its own words is
    # taken ("a founder member of the group" / "a member": "group" is not "member")
    targets = [
        k
        for k in span.content
        if span.concepts[k] not in claim.concept_set and span.lemmas[k] not in claim.lemma_set
    ]
    if not targets:
        return ()
    for i in claim.content:
        word = claim.tokens[i]
        if word not in wanted or word in seen or not claim_vectors[i].any():
            continue
        seen.add(word)
        cosines = span_vectors[targets] @ claim_vectors[i]
        best = int(np.argmax(cosines))
        if cosines[best] >= threshold:
            found.append(SoftMatch(word, span.tokens[targets[best]], float(cosines[best])))
            del targets[best]  # each span word reads one claim word at most
            if not targets:
                break
    return tuple(found)
