"""Writes for sources and their immutable versions.

A new version of a document supersedes the earlier ones: ``source_upsert`` re-resolves
the claims bound to them at once (a supported one becomes ``unverified`` /
``stale_source``). ``source_claims_rebind`` then binds the source's claims again in the
new version where their words still are as they were, judges and scores them, so an
unchanged sentence keeps a current claim: ingest runs it as a job's ``rebind`` item;
``POST /connect/v1/sources`` and the inline sources of claims/verify as an ingest job of
its own, queued on commit (``services.ingest_create.source_upsert_queue_rebind``: a
large source's claims take minutes to judge, past a web worker's timeout). One rule, at
every door that writes documents."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from verifier.domain_packs import (
    DEFAULT_DOMAIN_PACK,
    RAG_CHUNK_REF_PREFIX,
    TRANSCRIPT_REF_PREFIX,
    domain_pack_problem,
)
from verifier.errors import ApplicationError
from verifier.judges import Judge
from verifier.models import Claim, IngestJob, Source, SourceVersion, Workspace, text_sha256
from verifier.selectors.rules import rule_set_domain_packs
from verifier.selectors.sources import SourceKind, source_kind
from verifier.services.binding import claims_rebind_superseded
from verifier.services.claim_state import claim_restore, claims_state_refresh_superseded
from verifier.services.ingest_validate import claims_classify
from verifier.services.judging import claim_vectors, claims_judge
from verifier.states import CAUSE_RESTORED, ClaimState, StateDecision, StateReason
from verifier.untrusted_input import (
    blank_text_problem,
    canonical_ref,
    display_text_problem,
    identifier_refusal,
)


class SourceInputError(ApplicationError, ValueError):
    """A source text that cannot be stored (the API answers 400)."""


class SourceDomainPackConflict(SourceInputError):
    """A different domain pack asked for an existing source (409, at every door). A
    source's pack is fixed when it is made: the rule set and policy its claims are scored
    under are chosen by it, and they were judged under that one."""

    status_code = 409


class SourceRefInUse(SourceInputError):
    """The ref names a source another door owns (409, at every door): a memory
    transcript's text is its turns, and a RAG chunk's ref is the hash of its one text, so
    neither takes a document's version, and a document never becomes a transcript."""

    status_code = 409


# Which door writes a source's versions (``verifier.selectors.sources.SourceKind``).
SourceDoor = SourceKind
REF_MAX_CHARS: Final = Source._meta.get_field("ref").max_length or 200
# Refs made from a text's hash by the memory and RAG doors: a document may not take one.
_RESERVED_PREFIXES: Final = {
    TRANSCRIPT_REF_PREFIX: "memory transcripts",
    RAG_CHUNK_REF_PREFIX: "RAG chunks",
}


_OWNED_BY: Final = {
    "transcript": "a memory transcript: its text is the turns stored through "
    "/connect/v1/memory/transcripts, and a document cannot become its next version",
    "rag_chunk": "a RAG chunk, named by the hash of its text: its one version never changes",
}


_DOOR_WORDS: Final = {"transcript": "a transcript", "rag_chunk": "a RAG chunk"}


def _check_door(source: Source, created: bool, door: SourceDoor) -> None:
    """A ref stays with the door that made it (``SourceRefInUse``), and a document may
    not be made under a ref the memory or RAG door makes from a hash. Raised inside the
    write's transaction, so a source just made for it is not kept."""
    ref = source.ref
    if created:
        reserved = next((p for p in _RESERVED_PREFIXES if ref.startswith(p)), None)
        if door == "document" and reserved is not None:
            raise SourceInputError(
                "reserved_ref",
                f"Refs that start with {reserved!r} are made by Spanproof for "
                f"{_RESERVED_PREFIXES[reserved]}; give the document a ref of its own, such as "
                "source:my_document.",
                {"field": "ref"},
            )
        return
    owner = source_kind(source)
    if owner == door:
        return
    if owner == "document":
        what = _DOOR_WORDS[door]
        raise SourceRefInUse(
            "ref_in_use",
            f"The ref {ref!r} names a document source, not {what}: give {what} a ref of its "
            "own, or none (one is made from its text).",
            {"field": "ref", "ref": ref},
        )
    raise SourceRefInUse(
        "ref_in_use",
        f"The source {ref!r} is {_OWNED_BY[owner]}. Give the document a ref of its own.",
        {"field": "ref", "ref": ref},
    )


@dataclass(frozen=True)
class SourceWrite:
    source: Source
    version: SourceVersion
    created_source: bool
    created_version: bool
    # the job that judges the source's earlier claims again in the new version, when a
    # door queues it (``services.ingest_create.source_upsert_queue_rebind``)
    rebind_job: IngestJob | None = None


def _validate_text(text: str) -> None:
    limit = settings.SOURCE_TEXT_MAX_CHARS
    if len(text) > limit:  # every door's limit, the command line's too
        raise SourceInputError(
            "text_too_long",
            f"The text is {len(text):,} characters long; a source holds at most {limit:,} "
            "characters: split it into smaller texts.",
            {"field": "text"},
        )
    blank = blank_text_problem(text)
    if blank is not None:
        raise SourceInputError(
            "empty_text",
            f"The text {blank}: a source needs text with something to read.",
            {"field": "text"},
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SourceInputError(
            "invalid_unicode", f"The text is not valid Unicode at position {exc.start}."
        ) from exc
    nul = text.find("\x00")
    if nul >= 0:
        raise SourceInputError(
            "invalid_text", f"The text contains a NUL character at position {nul}."
        )


def _check_domain_pack(workspace: Workspace, ref: str, domain_pack: str) -> None:
    """A pack named for a new source must be one of the workspace's or a name that reads
    as what it is (``verifier.domain_packs``). An existing source's own pack is fine, and
    another one is the conflict ``source_upsert`` refuses by itself."""
    if Source.objects.filter(workspace=workspace, ref=ref).exists():
        return
    problem = domain_pack_problem(domain_pack, rule_set_domain_packs(workspace=workspace))
    if problem is not None:
        raise SourceInputError("invalid_domain_pack", problem, {"field": "domain_pack"})


@transaction.atomic
def source_upsert(
    *,
    workspace: Workspace,
    ref: str,
    text: str,
    title: str = "",
    citation: str = "",
    domain_pack: str = "",
    door: SourceDoor = "document",
) -> SourceWrite:
    """Create the source, or a new version when its text changed. Identical text is a no-op.

    ``ref`` is stored in its one form (``canonical_ref``: NFC), so its composed and
    decomposed spellings are one source.

    ``door`` says who writes it: a ref made by one door (a document, a memory transcript,
    a RAG chunk) is refused to the others with ``SourceRefInUse`` before anything is
    written, and a document may not take a ``transcript:`` or ``rag-chunk:`` ref.

    ``domain_pack`` is fixed when the source is made (blank: ``general``). For an existing
    source, blank or its own pack leaves it; another is refused with
    ``SourceDomainPackConflict`` before anything is written (nothing re-judges its claims
    under another pack's rules: a source in another pack is a new source, under a new ref).

    A new version supersedes the earlier ones at once, in this transaction: every claim
    bound to an earlier version is re-resolved by the state writer (a supported one
    becomes ``unverified`` / ``stale_source``), whichever door the text came through.
    The read-time re-check stays as the safety net."""
    _validate_text(text)
    if not ref.strip():
        raise SourceInputError("empty_ref", "A source needs a ref such as source:my_document.")
    refused = identifier_refusal("ref", ref)
    if refused is not None:
        raise SourceInputError("invalid_ref", refused, {"field": "ref"})
    ref = canonical_ref(ref)  # one ref however its letters were encoded (rule 3)
    if len(ref) > REF_MAX_CHARS:  # composing can lengthen one (U+0958 is two characters)
        raise SourceInputError(
            "invalid_ref",
            f"The ref has {len(ref)} characters in Unicode's composed form (NFC), in which "
            f"it is stored; at most {REF_MAX_CHARS}.",
            {"field": "ref"},
        )
    for field, value in (("title", title), ("citation", citation)):
        shown = display_text_problem(value)
        if shown is not None:
            raise SourceInputError(f"invalid_{field}", f"The {field} {shown}.", {"field": field})
    if domain_pack:
        _check_domain_pack(workspace, ref, domain_pack)
    source, created_source = Source.objects.select_for_update(no_key=True).get_or_create(
        workspace=workspace,
        ref=ref,
        defaults={
            "title": title or ref,
            "citation": citation,
            "domain_pack": domain_pack or DEFAULT_DOMAIN_PACK,
        },
    )
    _check_door(source, created_source, door)
    if not created_source:
        if domain_pack and domain_pack != source.domain_pack:
            # advise another ref only where that pack could be used (not "General"
            # beside "general": a new source would be refused it too)
            elsewhere = domain_pack_problem(domain_pack, rule_set_domain_packs(workspace=workspace))
            advice = (
                f"for the {domain_pack!r} pack, create a source under another ref."
                if elsewhere is None
                else f"the {domain_pack!r} pack cannot be used: {elsewhere}"
            )
            raise SourceDomainPackConflict(
                "domain_pack_conflict",
                f"The source {ref!r} is in the domain pack {source.domain_pack!r}; the domain "
                f"pack of an existing source cannot change (its claims were judged and scored "
                f"under that pack's rules). Leave domain_pack out or send "
                f"{source.domain_pack!r} to add a version; {advice}",
                {"field": "domain_pack", "current": source.domain_pack, "requested": domain_pack},
            )
        changed = {}
        if title and title != source.title:
            changed["title"] = title
        if citation and citation != source.citation:
            changed["citation"] = citation
        if changed:
            Source.objects.filter(pk=source.pk).update(**changed)
            for key, value in changed.items():
                setattr(source, key, value)
    digest = text_sha256(text)
    latest = SourceVersion.objects.filter(source=source).order_by("-number").first()
    if latest is not None and latest.sha256 == digest:
        return SourceWrite(source, latest, created_source, False)
    version = SourceVersion.objects.create(
        source=source, number=(latest.number if latest else 0) + 1, text=text, sha256=digest
    )
    if latest is not None:
        claims_state_refresh_superseded(version=version)
    return SourceWrite(source, version, created_source, True)


@transaction.atomic
def source_claims_rebind(
    *,
    version: SourceVersion,
    why: str,
    exclude_ingest_job_id: int | None = None,
    exclude_claim_ids: Iterable[int] = (),
    judge: Judge | None = None,
) -> list[Claim]:
    """Bind the source's claims (not excluded ones; not those of the ingest job
    ``exclude_ingest_job_id``, which extracted them from this version; not
    ``exclude_claim_ids``, a claims/verify batch's, which it verifies itself) in its current
    version where their words still are as they were, then judge and score them again
    (``claims_rebind_superseded`` with ``keep_changed``: a claim whose words changed or
    went keeps its span in the earlier version, stale, for a reviewer). Under the
    source's row lock, in one transaction: run again, it finds their spans current and
    does nothing. ``why`` ends each state event's cause. Returns the claims bound again.

    The source's lock is FOR NO KEY UPDATE: it still admits one writer of the source at a
    time, and lets a transaction that updated a claim of the source twice (a claims/verify
    batch verifying it: bound, then judged) commit while this one waits for that claim's
    row (``claims_rebind_superseded`` locks its claims first). PostgreSQL checks such a
    claim's foreign key to its source at commit, FOR KEY SHARE, which FOR UPDATE blocks:
    each waited for the other (a deadlock)."""
    Source.objects.select_for_update(no_key=True).filter(pk=version.source_id).first()
    earlier = Claim.objects.filter(source_id=version.source_id, exclusion_reason="")
    if exclude_ingest_job_id is not None:
        earlier = earlier.exclude(ingest_job_id=exclude_ingest_job_id)
    if exclude_claim_ids:
        earlier = earlier.exclude(pk__in=list(exclude_claim_ids))
    claims = list(earlier.select_related("source").defer("embedding").order_by("pk"))
    return claims_rebind_judge(claims=claims, why=why, judge=judge)


def claims_rebind_judge(
    *,
    claims: Sequence[Claim],
    why: str,
    actor: User | None = None,
    judge: Judge | None = None,
) -> list[Claim]:
    """The re-binding job's rule for ``claims`` (of one workspace): bind each whose span
    is in an earlier version of its source again in the current one where its words
    still are as they were (``claims_rebind_superseded`` with ``keep_changed``), then
    judge and score the claims bound again. Returns them."""
    rebound = claims_rebind_superseded(claims=claims, actor=actor, why=why, keep_changed=True)
    if not rebound:
        return []
    claims_judge(claims=rebound, judge=judge, cause=why, vectors=claim_vectors(rebound))
    claims_classify(workspace=rebound[0].workspace, claims=rebound)
    return rebound


@transaction.atomic
def claim_restore_rebind(*, claim: Claim, actor: User | None = None) -> StateDecision:
    """Restore an excluded claim (``claim_restore``) and, when its span is in an earlier
    version of its source than the current one (a new version came while it was
    excluded, and ``source_claims_rebind`` skips excluded claims), bind and judge it in
    the current version as that job would have (``claims_rebind_judge``): a claim whose
    words are unchanged is current again, one whose words changed stays stale for a
    reviewer. Returns the claim's decision as it stands after."""
    decision = claim_restore(claim=claim, actor=actor)
    # ``claims_rebind_superseded``'s rule, read without the version's text: a span whose
    # hash is the current version's is current
    bound = claim.bindings.filter(is_active=True).values_list("source_hash", flat=True).first()
    current = (
        SourceVersion.objects.filter(source_id=claim.source_id)
        .order_by("-number")
        .values_list("sha256", flat=True)
        .first()
    )
    if bound is None or current is None or bound == current:
        return decision
    claims_rebind_judge(claims=[claim], why=CAUSE_RESTORED, actor=actor)
    claim.refresh_from_db(fields=["state", "state_reason", "queue_rank"])
    return StateDecision(state=ClaimState(claim.state), reason=StateReason(claim.state_reason))
