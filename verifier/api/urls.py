"""/connect/v1/ — each area keeps its routes in its own module."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from verifier.api.workspace import WorkspaceGetApi

urlpatterns = [
    path("schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("workspace", WorkspaceGetApi.as_view(), name="api-workspace"),
    path("", include("verifier.api.connect_urls")),
    path("", include("verifier.api.ingest_urls")),
    path("", include("verifier.api.rag_urls")),
    path("", include("verifier.api.memory_urls")),
]
