"""Console routes for the memory-claim verifier (mounted at /audit/memory/)."""

from django.urls import path

from audit import memory_views

app_name = "memory"

urlpatterns = [
    path("", memory_views.memory_index, name="index"),
    path("checks/<int:check_id>/", memory_views.memory_check_detail, name="check"),
]
