from django.urls import path

from . import views

app_name = "catalog"

urlpatterns = [
    path("", views.PartListView.as_view(), name="part-list"),
    path("new/", views.PartCreateView.as_view(), name="part-create"),
    path("<int:pk>/", views.PartDetailView.as_view(), name="part-detail"),
    path("<int:pk>/edit/", views.PartUpdateView.as_view(), name="part-update"),
]
