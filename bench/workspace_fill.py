"""A workspace that already holds many published claims, for benches that measure how
a cost grows with workspace size (``bench/ingest.py --workspace-claims``).

The vectors resemble real ones without embedding every row: ``BASE_SENTENCES`` real
sentences of the training prose (``../shared/train/prose.jsonl``) are embedded once with
all-MiniLM-L6-v2 (cached in ``var/bench/`` as .npy), and claim ``i`` gets base vector
``i mod BASE_SENTENCES`` plus Gaussian noise of norm ``NOISE_NORM``, re-normalised
(cosine ≈ 0.94 to its base, ≈ 0.89 between two copies of one base), and the base
sentence as its text. Each claim is published, in a source of ``CLAIMS_PER_SOURCE``;
none has bindings, verdicts or entities.

Rows are written with the HNSW index dropped: the claims by ``bulk_create`` without
vectors, the vectors by binary COPY into a temporary table and one UPDATE per chunk
(``id_vector_copy_binary``, as the pipeline writes them), then the index is built
again as the owner role with ``maintenance_work_mem = 1GB`` (the migration's
definition: m = 16, ef_construction = 64, cosine, published claims only).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Final

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PROSE = ROOT.parent / "shared" / "train" / "prose.jsonl"
CACHE = ROOT / "var" / "bench"
BASE_SENTENCES: Final = 10_000
NOISE_NORM: Final = 0.35
CLAIMS_PER_SOURCE: Final = 1_000
CHUNK: Final = 20_000
HNSW_INDEX: Final = "claim_embedding_hnsw"
CREATE_HNSW: Final = (
    f"CREATE INDEX {HNSW_INDEX} ON verifier_claim USING hnsw "
    "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64) WHERE published"
)


def prose_sentences(n: int, path: Path = PROSE) -> list[str]:
    """The first ``n`` distinct sentences of 40–300 characters of the training prose,
    in file order."""
    seen: set[str] = set()
    out: list[str] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            for sentence in json.loads(line)["sentences"]:
                sentence = sentence.strip()
                if 40 <= len(sentence) <= 300 and sentence not in seen:
                    seen.add(sentence)
                    out.append(sentence)
                    if len(out) == n:
                        return out
    return out


def cached_embeddings(texts: list[str], name: str) -> np.ndarray:
    """MiniLM vectors of ``texts``, cached under ``var/bench/`` by a hash of the texts."""
    from verifier.embeddings import embed_texts

    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{name}_{len(texts)}_{digest}.npy"
    if path.exists():
        return np.load(path)
    CACHE.mkdir(parents=True, exist_ok=True)
    vectors = np.asarray(embed_texts(texts, batch_size=256), dtype=np.float32)
    np.save(path, vectors)
    return vectors


def noisy_copies(base: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Row ``i``: ``base[i mod len(base)]`` plus noise of norm ``NOISE_NORM`` in a
    uniformly random direction, re-normalised; float32."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for first in range(0, n, CHUNK):
        rows = np.arange(first, min(n, first + CHUNK))
        noise = rng.standard_normal((len(rows), base.shape[1])).astype(np.float32)
        noise *= NOISE_NORM / np.linalg.norm(noise, axis=1)[:, None]
        block = base[rows % len(base)] + noise
        out[rows] = block / np.linalg.norm(block, axis=1)[:, None]
    return out


def store_vectors(ids: list[int], vectors: np.ndarray) -> None:
    from django.db import connection, transaction

    from verifier.embeddings import id_vector_copy_binary

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE fill_vectors (id bigint, embedding vector(384)) ON COMMIT DROP"
        )
        with cursor.copy("COPY fill_vectors (id, embedding) FROM STDIN WITH (FORMAT BINARY)") as c:
            c.write(id_vector_copy_binary(ids, vectors))
        cursor.execute(
            "UPDATE verifier_claim AS c SET embedding = v.embedding FROM fill_vectors AS v "
            "WHERE c.id = v.id AND c.id = ANY(%s::bigint[])",
            [ids],
        )


def fill_workspace(workspace, n_claims: int, *, seed: int = 17) -> dict:
    """Add ``n_claims`` published claims with synthetic vectors to ``workspace`` (module
    docstring); returns what it did and how long each part took."""
    from django.db import connection, transaction

    from config.database_roles import as_owner
    from verifier.models import Claim, Source

    timings: dict[str, float] = {}
    t = time.perf_counter()
    texts = prose_sentences(BASE_SENTENCES)
    base = cached_embeddings(texts, "prose_sentences")
    vectors = noisy_copies(base, n_claims, seed)
    timings["vectors_s"] = time.perf_counter() - t

    t = time.perf_counter()
    with as_owner(), connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
    for first in range(0, n_claims, CHUNK):
        last = min(n_claims, first + CHUNK)
        with transaction.atomic():
            sources = Source.objects.bulk_create(
                [
                    Source(workspace=workspace, ref=f"source:fill_{seed}_{s}", title=f"Fill {s}")
                    for s in range(first // CLAIMS_PER_SOURCE, -(-last // CLAIMS_PER_SOURCE))
                ]
            )
            claims = Claim.objects.bulk_create(
                [
                    Claim(
                        workspace=workspace,
                        source=sources[i // CLAIMS_PER_SOURCE - first // CLAIMS_PER_SOURCE],
                        text=texts[i % len(texts)],
                        original_text=texts[i % len(texts)],
                        origin="imported",
                        published=True,
                    )
                    for i in range(first, last)
                ],
                batch_size=5_000,
            )
        store_vectors([c.pk for c in claims], vectors[first:last])
    timings["insert_s"] = time.perf_counter() - t

    t = time.perf_counter()
    with as_owner(), connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE verifier_claim")
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(CREATE_HNSW)
        cursor.execute("RESET maintenance_work_mem")
    timings["hnsw_build_s"] = time.perf_counter() - t
    return {
        "claims": n_claims,
        "base_sentences": len(texts),
        "noise_norm": NOISE_NORM,
        **{k: round(v, 1) for k, v in timings.items()},
    }
