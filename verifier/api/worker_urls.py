"""/worker/ routes (seed 001)."""

from django.urls import path

from verifier.api.worker import WorkerVerifyApi

urlpatterns = [
    path("verify", WorkerVerifyApi.as_view(), name="worker-verify"),
]
