from django.urls import path

from review import decision_views, relation_views, views

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("start/", views.start, name="start"),
    path("bulk/", views.bulk, name="bulk"),
    path("send-back/<int:job_id>/", views.rejudge_job, name="rejudge-job"),
    path("blind/", views.blind_toggle, name="blind"),
    path("decisions/", decision_views.decisions, name="decisions"),
    path("guidelines/", views.guidelines, name="guidelines"),
    path("guidelines/edit/", views.guidelines_edit, name="guidelines-edit"),
    path("relations/", relation_views.relations, name="relations"),
    path("relations/bulk/", relation_views.relations_bulk, name="relations-bulk"),
    path("relations/<int:pk>/decide/", relation_views.relation_decide, name="relation-decide"),
    path("relations/<int:pk>/undo/", relation_views.relation_undo, name="relation-undo"),
    path("item/<str:public_id>/", views.item, name="item"),
    path("item/<str:public_id>/decide/", views.decide, name="decide"),
    path("item/<str:public_id>/exclude/", views.exclude, name="exclude"),
    path("item/<str:public_id>/restore/", views.restore, name="restore"),
    path("item/<str:public_id>/rejudge/", views.rejudge, name="rejudge"),
    path("item/<str:public_id>/note/", views.note, name="note"),
    path("item/<str:public_id>/undo/", views.undo, name="undo"),
    path("item/<str:public_id>/skip/", views.skip, name="skip"),
    path("item/<str:public_id>/release/", views.release, name="release"),
    path("item/<str:public_id>/release-hold/", views.release_hold, name="release-hold"),
]
