"""The pipeline's stages as item lists and per-item work (see ``services.ingest``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from verifier.models import Claim, IngestJob, IngestStage
from verifier.selectors.ingest import claim_range_keys, claims_in_range
from verifier.services.graph_relate import claims_relate
from verifier.services.ingest_extract import extract_item, extract_items
from verifier.services.ingest_group import claims_embed, claims_group
from verifier.services.ingest_stage_spec import StageSpec
from verifier.services.ingest_store import ingest_job_finish, ingest_job_store
from verifier.services.ingest_validate import claims_remediate, claims_validate

# Claims per item, by stage. Validation binds and judges; its batch is one transaction.
RELATE_BATCH: Final = 500
GROUP_BATCH: Final = 1024
EMBED_BATCH: Final = 256
VALIDATE_BATCH: Final = 200
REMEDIATE_BATCH: Final = 200
STORE_ITEM: Final = "publish"


def _batched(batch: int) -> Callable[[IngestJob], list[str]]:
    return lambda job: claim_range_keys(job, batch)


def _claims(job: IngestJob, key: str, *related: str) -> list[Claim]:
    # Vectors are read where needed (one binary query), never parsed per instance.
    return list(claims_in_range(job, key).select_related(*related).defer("embedding"))


def _embed_ahead(job: IngestJob, key: str) -> None:
    claims_embed(claims=_claims(job, key))


STAGES: Final[dict[str, StageSpec]] = {
    IngestStage.EXTRACT: StageSpec(extract_items, extract_item, own_transactions=True),
    # Serial: a batch relates its claims to the EARLIER claims mentioning the same
    # entities and recounts entity co-mention weights, so it must see earlier batches.
    IngestStage.RELATE: StageSpec(
        _batched(RELATE_BATCH),
        lambda job, key: claims_relate(job=job, claims=_claims(job, key)),
        serial=True,
    ),
    # Serial: a claim's near-duplicate is an EARLIER claim, whose vector and cluster
    # root an earlier batch writes. Embedding a batch is order-free, so shards waiting
    # for their turn embed later batches ahead (``prepare``).
    IngestStage.GROUP: StageSpec(
        _batched(GROUP_BATCH),
        lambda job, key: claims_group(claims=_claims(job, key)),
        serial=True,
        prepare=lambda job, key: _embed_ahead(job, key),
    ),
    IngestStage.EMBED: StageSpec(
        _batched(EMBED_BATCH), lambda job, key: claims_embed(claims=_claims(job, key))
    ),
    IngestStage.VALIDATE: StageSpec(
        _batched(VALIDATE_BATCH),
        lambda job, key: claims_validate(job=job, claims=_claims(job, key, "source")),
    ),
    IngestStage.REMEDIATE: StageSpec(
        _batched(REMEDIATE_BATCH),
        lambda job, key: claims_remediate(job=job, claims=_claims(job, key, "source")),
    ),
    # The job is finished (report, state, webhooks) only after its item is marked done.
    IngestStage.STORE: StageSpec(
        lambda job: [STORE_ITEM],
        lambda job, key: ingest_job_store(job=job),
        own_transactions=True,
        finish=lambda job: ingest_job_finish(job=job),
    ),
}
