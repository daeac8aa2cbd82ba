from verifier.models.activity import ActivityAction, WorkspaceEvent
from verifier.models.audit_packs import AuditPackJob, AuditPackJobStatus, WorkspaceSigningKey
from verifier.models.benchmarks import ValidatorRun
from verifier.models.calibrators import (
    CalibratorChangeAction,
    CalibratorChangeJob,
    CalibratorChangeJobStatus,
    CalibratorStatus,
    JudgeCalibrator,
)
from verifier.models.claims import Claim, ClaimOrigin, ClaimStateChoices, new_claim_public_id
from verifier.models.evidence import BoundBy, EvidenceBinding, EvidenceCandidate, MatchKind
from verifier.models.graph import (
    ClaimRelation,
    Entity,
    EntityRelation,
    RelationKind,
    RelationVerification,
)
from verifier.models.ingest import (
    IngestItem,
    IngestItemStatus,
    IngestJob,
    IngestStage,
    IngestStatus,
)
from verifier.models.memory import MemoryCheck, MemoryTranscript, MemoryUnitVector
from verifier.models.rag import RagAudit
from verifier.models.rate_limits import RateCounter
from verifier.models.relation_verification import (
    ChunkVerificationEvent,
    DecisionLevel,
    RelationDecision,
    RelationVerificationConfig,
    SrmkgCalibration,
)
from verifier.models.review_rejudge import ReviewRejudgeJob, ReviewRejudgeJobStatus
from verifier.models.rules import RuleSet, RuleSetActivation
from verifier.models.sentences import SourceSentence
from verifier.models.sources import (
    SPAN_CHUNK_CHARS,
    Source,
    SourceVersion,
    SourceVersionChunk,
    text_sha256,
)
from verifier.models.traces import Trace, TraceClaim
from verifier.models.verdicts import HUMAN_JUDGE_FAMILY, StateEvent, Verdict, VerdictLabel
from verifier.models.verification import VerificationJob, VerificationJobStatus
from verifier.models.webhooks import Webhook, WebhookAttempt, WebhookDelivery, WebhookEvent
from verifier.models.workers import WorkerBeat
from verifier.models.workspaces import (
    ApiKey,
    ApiScope,
    Membership,
    Role,
    Workspace,
    generate_api_key,
    hash_api_key,
)

__all__ = [
    "HUMAN_JUDGE_FAMILY",
    "SPAN_CHUNK_CHARS",
    "ActivityAction",
    "ApiKey",
    "ApiScope",
    "AuditPackJob",
    "AuditPackJobStatus",
    "BoundBy",
    "CalibratorChangeAction",
    "CalibratorChangeJob",
    "CalibratorChangeJobStatus",
    "CalibratorStatus",
    "ChunkVerificationEvent",
    "Claim",
    "ClaimOrigin",
    "ClaimRelation",
    "ClaimStateChoices",
    "DecisionLevel",
    "Entity",
    "EntityRelation",
    "EvidenceBinding",
    "EvidenceCandidate",
    "IngestItem",
    "IngestItemStatus",
    "IngestJob",
    "IngestStage",
    "IngestStatus",
    "JudgeCalibrator",
    "MatchKind",
    "Membership",
    "MemoryCheck",
    "MemoryTranscript",
    "MemoryUnitVector",
    "RagAudit",
    "RateCounter",
    "RelationDecision",
    "RelationKind",
    "RelationVerification",
    "RelationVerificationConfig",
    "ReviewRejudgeJob",
    "ReviewRejudgeJobStatus",
    "Role",
    "RuleSet",
    "RuleSetActivation",
    "Source",
    "SourceSentence",
    "SourceVersion",
    "SourceVersionChunk",
    "SrmkgCalibration",
    "StateEvent",
    "Trace",
    "TraceClaim",
    "ValidatorRun",
    "Verdict",
    "VerdictLabel",
    "VerificationJob",
    "VerificationJobStatus",
    "Webhook",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEvent",
    "WorkerBeat",
    "Workspace",
    "WorkspaceEvent",
    "WorkspaceSigningKey",
    "generate_api_key",
    "hash_api_key",
    "new_claim_public_id",
    "text_sha256",
]
