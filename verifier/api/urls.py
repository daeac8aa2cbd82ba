"""/connect/v1/ — each area keeps its routes in its own module."""

from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from verifier.api.workspace import WorkspaceGetApi

# Swagger UI: its init script is served separately (the split view), but the page
# carries an inline <style> and loads the UI from its CDN — allowed on this page only.
SWAGGER_CDN = "https://cdn.jsdelivr.net"
_docs_view = csp_update(
    {
        "script-src": [SWAGGER_CDN],
        "style-src": [SWAGGER_CDN, "'unsafe-inline'"],
        "img-src": [SWAGGER_CDN],
    }
)(SpectacularSwaggerSplitView.as_view(url_name="api-schema"))

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
