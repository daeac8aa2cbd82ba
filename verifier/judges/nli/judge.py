"""``spanproof-nli-v1``: an offline judge, a classifier trained in this repository
(``SPANPROOF_JUDGE_BACKEND=nli``; not yet the default, see docs/spanproof-nli.md).

For each item the claim is compared with every bound span and, with several spans, with
their concatenation. Each comparison is a feature vector (``features.pair_features``:
MiniLM word-piece alignment of claim to span, sentence cosine, numbers, negation, hedges,
names, lengths) read by a small trained MLP (``head``) whose probabilities are
temperature-calibrated on the development data. The best comparison decides:

* ``entailed`` when P(entailment) reaches the fitted threshold (chosen for precision of
  ``entailed`` first); confidence = that calibrated probability;
* else ``contradicted`` when P(contradiction) reaches its threshold;
* else ``abstained``, confidence = 1 − P(entailment).

A claim that is its bound span verbatim (after whitespace folding) is entailed without
a model call. Training: ``python -m verifier.judges.nli.train`` (docs/spanproof-nli.md).

No Django imports.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verifier.judges.base import JudgeItem, JudgeResult
from verifier.judges.candidates import candidate_texts, verbatim_candidate
from verifier.judges.coverage import judge_items
from verifier.judges.decision import decide_by_thresholds
from verifier.judges.nli.encoder import Encoded, TokenEncoder, shared_encoder
from verifier.judges.nli.features import FEATURE_COUNT, FEATURE_NAMES, Alignment, pair_features
from verifier.judges.nli.head import Head, load_head
from verifier.model_config import NLI_FAMILY

MODEL_ID = "spanproof-nli-v1"
FAMILY = NLI_FAMILY
PROMPT_VERSION = 1
BATCH_SIZE = 64
VERBATIM_CONFIDENCE = 0.99
WEAK_PIECE_COSINE = 0.6  # claim pieces below this are named in the note
NOTE_WEAK_PIECES = 4


@dataclass(frozen=True)
class PairText:
    claim: str
    span: str
    context: str


def featurize(
    pairs: Sequence[PairText], encoder: TokenEncoder
) -> tuple[np.ndarray, list[Alignment]]:
    """Feature matrix (n, FEATURE_COUNT) and claim-to-span alignments; every distinct
    text is encoded once."""
    texts: dict[str, int] = {}
    for pair in pairs:
        texts.setdefault(pair.claim, len(texts))
        texts.setdefault(pair.span, len(texts))
        if pair.context:
            texts.setdefault(pair.context, len(texts))
    encoded: list[Encoded] = encoder.encode(list(texts))
    rows = np.zeros((len(pairs), FEATURE_COUNT), dtype=np.float32)
    alignments: list[Alignment] = []
    for i, pair in enumerate(pairs):
        with_context = None
        if pair.context:
            span, context = encoded[texts[pair.span]], encoded[texts[pair.context]]
            with_context = Encoded(
                span.tokens + context.tokens,
                np.concatenate([span.vectors, context.vectors]),
                span.sentence,
            )
        rows[i], alignment = pair_features(
            claim_text=pair.claim,
            span_text=pair.span,
            context_text=pair.context,
            claim=encoded[texts[pair.claim]],
            span=encoded[texts[pair.span]],
            with_context=with_context,
        )
        alignments.append(alignment)
    return rows, alignments


def _weak_pieces(alignment: Alignment) -> str:
    order = np.argsort(alignment.best)
    weak = [
        alignment.pieces[i]
        for i in order[:NOTE_WEAK_PIECES]
        if alignment.best[i] < WEAK_PIECE_COSINE
    ]
    return ", ".join(weak)


class NliJudge:
    model_id = MODEL_ID
    family = FAMILY
    prompt_version = PROMPT_VERSION
    batch_size = BATCH_SIZE
    reads_context = True  # the judging service fills JudgeItem.context for it

    def __init__(self, *, head: Head | None = None, encoder: TokenEncoder | None = None) -> None:
        self._head = head
        self._encoder = encoder or shared_encoder()

    @property
    def head(self) -> Head:
        if self._head is None:
            self._head = _shared_head()
        return self._head

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        results: dict[str, JudgeResult] = {}
        pairs: list[PairText] = []
        owners: list[tuple[str, str]] = []  # (item key, candidate label)
        for item in items:
            if not item.has_evidence:
                continue
            candidates = candidate_texts(item)
            verbatim = verbatim_candidate(item)
            if verbatim is not None:
                results[item.key] = JudgeResult(
                    item.key, "entailed", VERBATIM_CONFIDENCE, f"verbatim: claim is {verbatim}"
                )
                continue
            for label, span in candidates:
                pairs.append(PairText(item.claim, span, item.context))
                owners.append((item.key, label))
        if pairs:
            head = self.head
            features, alignments = featurize(pairs, self._encoder)
            probabilities = head.probabilities(features)
            best: dict[str, tuple[int, float, float]] = {}  # key → (pair, p_entail, p_contra)
            for i, (key, _) in enumerate(owners):
                p_entail, p_contra = float(probabilities[i, 0]), float(probabilities[i, 2])
                current = best.get(key)
                if current is None:
                    best[key] = (i, p_entail, p_contra)
                    continue
                # the candidate most likely entailed decides; the strongest contradiction is kept
                lead = i if p_entail > current[1] else current[0]
                best[key] = (lead, max(p_entail, current[1]), max(p_contra, current[2]))
            for key, (i, p_entail, p_contra) in best.items():
                results[key] = self._decide(
                    key, owners[i][1], p_entail, p_contra, alignments[i], head
                )
        return [results[item.key] for item in items if item.key in results]

    def reading(
        self, items: Sequence[JudgeItem]
    ) -> tuple[tuple[str, ...], np.ndarray, list[JudgeResult]]:
        """The pair features and calibrated class probabilities of the candidate most
        likely entailed, per item, and the answers (``verifier.judges.reading``)."""
        results = judge_items(self, items, batch_size=self.batch_size)
        names = (
            *(f"nli_{n}" for n in FEATURE_NAMES),
            "nli_p_entailed",
            "nli_p_neutral",
            "nli_p_contradicted",
        )
        rows = np.zeros((len(items), len(names)), dtype=np.float32)
        pairs: list[PairText] = []
        owners: list[int] = []
        for index, item in enumerate(items):
            if item.has_evidence:
                for _, span in candidate_texts(item):
                    pairs.append(PairText(item.claim, span, item.context))
                    owners.append(index)
        if pairs:
            features, _ = featurize(pairs, self._encoder)
            probabilities = self.head.probabilities(features)
            best: dict[int, int] = {}
            for i, owner in enumerate(owners):
                if owner not in best or probabilities[i, 0] > probabilities[best[owner], 0]:
                    best[owner] = i
            for owner, i in best.items():
                rows[owner] = np.concatenate([features[i], probabilities[i]])
        return names, rows, results

    @staticmethod
    def _decide(
        key: str, label: str, p_entail: float, p_contra: float, alignment: Alignment, head: Head
    ) -> JudgeResult:
        weak = _weak_pieces(alignment)
        return decide_by_thresholds(
            key,
            p_entailed=p_entail,
            p_contradicted=p_contra,
            entail_threshold=head.entail_threshold,
            contradict_threshold=head.contradict_threshold,
            where=label,
            detail=f"; unsupported: {weak}" if weak else "",
        )


_head_lock = threading.Lock()
_head: Head | None = None


def _shared_head() -> Head:
    global _head
    if _head is None:
        with _head_lock:
            if _head is None:
                _head = load_head()
    return _head
