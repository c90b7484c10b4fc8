from django.urls import path

from . import views

app_name = "compliance"

urlpatterns = [
    path("compliance/", views.ReviewQueueView.as_view(), name="queue"),
    path("compliance/hits/<int:pk>/decide/", views.HitDecisionView.as_view(), name="hit-decide"),
    path(
        "compliance/alerts/<int:pk>/acknowledge/",
        views.AlertAcknowledgeView.as_view(),
        name="alert-acknowledge",
    ),
    path("compliance/blocks/<int:pk>/lift/", views.BlockLiftView.as_view(), name="block-lift"),
    path("compliance/approvals/<int:pk>/", views.ApprovalDecideView.as_view(), name="approval-decide"),
    path("compliance/four-eyes/", views.FourEyesView.as_view(), name="four-eyes"),
    path(
        "compliance/shipments/<str:reference>/release/",
        views.HoldReleaseRequestView.as_view(),
        name="hold-release",
    ),
    path("compliance/holds/<int:pk>/resolve/", views.ResolveHoldView.as_view(), name="hold-resolve"),
    path("compliance/shipments/<str:reference>/", views.ShipmentComplianceView.as_view(), name="shipment"),
    path("compliance/shipments/<str:reference>/run/", views.RunCheckView.as_view(), name="run"),
    path("compliance/tasks/<str:task_id>/", views.TaskProgressView.as_view(), name="task"),
    path("compliance/parts/<int:pk>/", views.PartClassificationView.as_view(), name="part"),
    path("compliance/licences/", views.LicenceListView.as_view(), name="licences"),
    path("compliance/licences/<int:pk>/", views.LicenceDetailView.as_view(), name="licence"),
    path("compliance/licences/<int:pk>/edit/", views.LicenceEditView.as_view(), name="licence-edit"),
    path("compliance/licences/<int:pk>/expire/", views.LicenceExpireView.as_view(), name="licence-expire"),
    path("compliance/lists/", views.ScreeningListsView.as_view(), name="lists"),
    path("compliance/countries/", views.CountriesView.as_view(), name="countries"),
]
