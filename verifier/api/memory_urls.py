"""Connect API routes for the memory-claim verifier (seed 002)."""

from django.urls import path

from verifier.api.memory import MemoryAgentStatsApi, MemoryTranscriptImportApi, MemoryVerifyApi

urlpatterns = [
    path("memory/verify", MemoryVerifyApi.as_view(), name="api-memory-verify"),
    path("memory/transcripts", MemoryTranscriptImportApi.as_view(), name="api-memory-transcripts"),
    path(
        "memory/agents/<path:agent_id>/stats",
        MemoryAgentStatsApi.as_view(),
        name="api-memory-agent-stats",
    ),
]
