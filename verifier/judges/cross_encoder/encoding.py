"""How a (premise, claim) pair becomes the model's input, for training and judging alike.

The premise is what a reader of the source sees: the context (source title and the
sentence before the span, when known) followed by the bound span. The claim is the
second segment. A premise longer than the model's window is read in overlapping windows
(``WINDOW_STRIDE`` word pieces shared by neighbours), each followed by the whole claim;
a claim longer than ``MAX_CLAIM_TOKENS`` word pieces is cut there. Special tokens come
from the tokenizer's own post-processor, so BERT-, RoBERTa- and DeBERTa-style models
are framed as they were trained.

Needs only ``tokenizers`` and numpy (the trainer runs it on an accelerator machine with
nothing else of ours). No Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_TOKENS = 256  # the window, special tokens included
WINDOW_STRIDE = 64  # word pieces shared by consecutive windows of a long premise
MAX_CLAIM_TOKENS = 96
MAX_WINDOWS = 8  # a premise is read at most this far (8 windows ≈ 1,300 word pieces)
_PAD_TOKENS = ("[PAD]", "<pad>")


@dataclass(frozen=True)
class Window:
    ids: tuple[int, ...]
    type_ids: tuple[int, ...]


def premise_text(span: str, context: str = "") -> str:
    """The premise the judge reads: context first, as it stands before the span."""
    span, context = span.strip(), context.strip()
    return f"{context} {span}" if context and span else span or context


def prepare_tokenizer(tokenizer: Any) -> Any:
    """The tokenizer with its own padding and truncation switched off (windows are cut
    here, batches padded here)."""
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def pad_id(tokenizer: Any) -> int:
    for token in _PAD_TOKENS:
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


def pair_windows(
    tokenizer: Any,
    premise: str,
    claim: str,
    *,
    max_tokens: int = MAX_TOKENS,
    stride: int = WINDOW_STRIDE,
    max_windows: int = MAX_WINDOWS,
) -> list[Window]:
    """The model inputs for one pair: one window, or several for a long premise."""
    special = int(tokenizer.num_special_tokens_to_add(True))
    claim_enc = tokenizer.encode(claim, add_special_tokens=False)
    claim_limit = max(1, min(MAX_CLAIM_TOKENS, (max_tokens - special) // 2))
    if len(claim_enc.ids) > claim_limit:
        claim_enc.truncate(claim_limit)
    room = max_tokens - special - len(claim_enc.ids)
    premise_enc = tokenizer.encode(premise, add_special_tokens=False)
    pieces = [premise_enc]
    if len(premise_enc.ids) > room:
        premise_enc.truncate(room, stride=min(stride, room // 2))
        pieces = [premise_enc, *premise_enc.overflowing]
    windows = []
    for piece in pieces[:max_windows]:
        joined = tokenizer.post_process(piece, claim_enc, add_special_tokens=True)
        windows.append(Window(tuple(joined.ids), tuple(joined.type_ids)))
    return windows


def first_windows(
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    *,
    max_tokens: int = MAX_TOKENS,
    chunk: int = 8192,
) -> list[Window]:
    """The first window of each (premise, claim) pair, tokenized in parallel batches
    (what training reads). The same ids as ``pair_windows(...)[0]`` whenever the claim
    fits in ``MAX_CLAIM_TOKENS`` (the tokenizer's ``longest_first`` truncation then cuts
    the premise only); a longer claim is cut together with the premise instead."""
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    try:
        out: list[Window] = []
        for start in range(0, len(pairs), chunk):
            for enc in tokenizer.encode_batch(list(pairs[start : start + chunk])):
                out.append(Window(tuple(enc.ids), tuple(enc.type_ids)))
        return out
    finally:
        tokenizer.no_truncation()


def batch_arrays(windows: Sequence[Window], pad: int) -> dict[str, np.ndarray]:
    """``input_ids``, ``attention_mask`` and ``token_type_ids`` (int64), padded to the
    longest window of the batch."""
    width = max((len(w.ids) for w in windows), default=0)
    ids = np.full((len(windows), width), pad, dtype=np.int64)
    mask = np.zeros((len(windows), width), dtype=np.int64)
    types = np.zeros((len(windows), width), dtype=np.int64)
    for row, window in enumerate(windows):
        n = len(window.ids)
        ids[row, :n] = window.ids
        mask[row, :n] = 1
        types[row, :n] = window.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
