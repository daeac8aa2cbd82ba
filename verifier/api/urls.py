"""/connect/v1/ — each area keeps its routes in its own module."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from verifier.api.workspace import WorkspaceGetApi

# Swagger UI from the app's static files (drf-spectacular-sidecar), its init script served
# separately (the split view) and the page's styles in static/css/swagger.css
# (templates/drf_spectacular/swagger_ui.html): the console's strict CSP holds here too.
_docs_view = SpectacularSwaggerSplitView.as_view(url_name="api-schema")

urlpatterns = [
    path("schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs", _docs_view, name="api-docs"),
    path("workspace", WorkspaceGetApi.as_view(), name="api-workspace"),
    path("", include("verifier.api.connect_urls")),
    path("", include("verifier.api.ingest_urls")),
    path("", include("verifier.api.rag_urls")),
    path("", include("verifier.api.memory_urls")),
    path("", include("verifier.api.audit_pack_urls")),
]
