from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("organisations/", views.OrganisationListView.as_view(), name="organisation-list"),
    path("organisations/new/", views.OrganisationCreateView.as_view(), name="organisation-create"),
    path("organisations/<int:pk>/", views.OrganisationDetailView.as_view(), name="organisation-detail"),
    path("organisations/<int:pk>/edit/", views.OrganisationUpdateView.as_view(), name="organisation-update"),
    path(
        "organisations/<int:pk>/registrations/new/",
        views.RegistrationCreateView.as_view(),
        name="registration-create",
    ),
    path("organisations/<int:pk>/contacts/new/", views.ContactCreateView.as_view(), name="contact-create"),
    path(
        "organisations/<int:pk>/connections/new/",
        views.ConnectionCreateView.as_view(),
        name="connection-create",
    ),
    path(
        "organisations/<int:pk>/connections/<int:connection_pk>/remove/",
        views.ConnectionRemoveView.as_view(),
        name="connection-remove",
    ),
    path("api-tokens/", views.ApiTokenListView.as_view(), name="token-list"),
    path("api-tokens/<int:pk>/revoke/", views.ApiTokenRevokeView.as_view(), name="token-revoke"),
]
