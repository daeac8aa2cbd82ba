from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.http import require_http_methods

from review import home_views
from verifier import views as verifier_views
from verifier.pipeline import claim_worker_views
from verifier.sign_in import SignInForm

urlpatterns = [
    path("", home_views.home, name="home"),
    path("healthz", verifier_views.healthz, name="healthz"),
    path("glossary/", verifier_views.glossary, name="glossary"),
    path("favicon.ico", verifier_views.favicon, name="favicon"),
    path("workspace/switch", verifier_views.workspace_switch, name="workspace-switch"),
    path(
        "accounts/login/",
        # LoginView would also answer PUT like POST; only the form's methods are served.
        require_http_methods(["GET", "POST"])(
            auth_views.LoginView.as_view(
                redirect_authenticated_user=True, authentication_form=SignInForm
            )
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("connect/v1/", include("verifier.api.urls")),
    path("worker/console", claim_worker_views.worker_console, name="worker-console"),
    path("worker/", include("verifier.api.worker_urls")),
    path("review/", include("review.urls")),
    path("audit/", include("audit.urls")),
    path("audit/rag/", include("audit.rag_urls")),
    path("audit/memory/", include("audit.memory_urls")),
    path("ingest/", include("verifier.pipeline.urls")),
    path("verify/", include("verifier.pipeline.verify_urls")),
]

handler400 = "verifier.views.bad_request"
handler403 = "verifier.views.permission_denied"
handler404 = "verifier.views.page_not_found"
handler500 = "verifier.views.server_error"
