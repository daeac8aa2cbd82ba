from django.urls import path

from verifier.pipeline import views

app_name = "ingest"

urlpatterns = [
    path("", views.upload, name="upload"),
    path("jobs/<int:job_id>/", views.job_detail, name="job"),
    path("jobs/<int:job_id>/cancel/", views.job_cancel, name="job-cancel"),
]
