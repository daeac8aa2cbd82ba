"""A tiny, randomly initialised BERT sequence classifier with its own tokenizer, built
on the spot (nothing downloaded): what the tests and the judge benchmark's smoke row
load through the real code paths, since no other weights may be fetched here.

Its answers are meaningless; its shapes, files and label names are those of a real NLI
model (``config.json`` with ``id2label``, ``model.safetensors``, ``tokenizer.json``).
No Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from verifier.text.words import WORD_RUN_OR_MARK

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
_BASE_TEXT = (
    "the a an of in on to and or not no is was are were has have had it he she they "
    "this that with for by at from as be been light lighthouse automated built year "
    "claim source span text ship sea miles forty fourteen seed number one two three "
    "court held ruled that according proposed some all never always"
)
BASE_WORDS = tuple(_BASE_TEXT.split())
DEFAULT_ID2LABEL = {0: "entailment", 1: "neutral", 2: "contradiction"}


def build_tokenizer(words: Iterable[str]) -> object:
    """A lower-casing WordPiece tokenizer over ``words`` (plus digits and punctuation),
    framed as BERT frames pairs: [CLS] a [SEP] b [SEP]."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab: dict[str, int] = {}
    for token in (*SPECIAL, *words, *"0123456789", *".,;:'\"()-%"):
        vocab.setdefault(token, len(vocab))
    tokenizer = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    return tokenizer


def words_of(texts: Iterable[str]) -> list[str]:
    found = {w.lower() for t in texts for w in WORD_RUN_OR_MARK.findall(t) if w.isalpha()}
    return sorted(found - set(BASE_WORDS))


def build_tiny_classifier(
    folder: Path,
    *,
    texts: Iterable[str] = (),
    id2label: Mapping[int, str] = DEFAULT_ID2LABEL,
    seed: int = 0,
    hidden: int = 32,
    layers: int = 2,
) -> Path:
    """Write a tiny ``BertForSequenceClassification`` and its tokenizer to ``folder``
    (vocabulary: ``BASE_WORDS`` plus the words of ``texts``). Returns ``folder``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer([*BASE_WORDS, *words_of(texts)])
    tokenizer.save(str(folder / "tokenizer.json"))  # type: ignore[attr-defined]
    labels = {int(k): str(v) for k, v in id2label.items()}
    config = BertConfig(  # type: ignore[call-arg]
        vocab_size=tokenizer.get_vocab_size(),  # type: ignore[attr-defined]
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=hidden * 2,
        max_position_embeddings=512,
        num_labels=len(labels),
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(str(folder))
    return folder
