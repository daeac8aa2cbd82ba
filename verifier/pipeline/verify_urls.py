from django.urls import path

from verifier.pipeline import verify_views

app_name = "verify"

urlpatterns = [
    path("", verify_views.verify, name="verify"),
    path("jobs/<int:job_id>/", verify_views.job_detail, name="job"),
]
