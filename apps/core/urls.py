"""Pages of the core app: a long list's export, written in the background, and its file."""

from django.urls import path

from . import views_exports

app_name = "core"

urlpatterns = [
    path("<str:task_id>/", views_exports.ExportView.as_view(), name="export"),
    path("<str:task_id>/download/", views_exports.ExportDownloadView.as_view(), name="export-download"),
]
