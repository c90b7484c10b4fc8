from django.urls import path

from . import views

app_name = "shipments"

urlpatterns = [
    path("shipments/", views.ShipmentListView.as_view(), name="shipment-list"),
    path("shipments/new/", views.ShipmentCreateView.as_view(), name="shipment-create"),
    path("shipments/bulk/", views.ShipmentBulkView.as_view(), name="shipment-bulk"),
    path("shipments/<str:reference>/", views.ShipmentDetailView.as_view(), name="shipment-detail"),
    path("shipments/<str:reference>/edit/", views.ShipmentUpdateView.as_view(), name="shipment-update"),
    path("shipments/<str:reference>/transition/", views.TransitionView.as_view(), name="shipment-transition"),
    path("shipments/<str:reference>/amend/", views.AmendView.as_view(), name="shipment-amend"),
    path("shipments/<str:reference>/lines/", views.LineAddView.as_view(), name="line-add"),
    path("shipments/<str:reference>/lines/bulk/", views.LinesBulkView.as_view(), name="lines-bulk"),
    path(
        "shipments/<str:reference>/lines/<int:pk>/remove/", views.LineRemoveView.as_view(), name="line-remove"
    ),
    path("shipments/<str:reference>/packages/", views.PackageAddView.as_view(), name="package-add"),
    path(
        "shipments/<str:reference>/packages/<int:pk>/remove/",
        views.PackageRemoveView.as_view(),
        name="package-remove",
    ),
    path("shipments/<str:reference>/legs/", views.LegAddView.as_view(), name="leg-add"),
    path("shipments/<str:reference>/legs/<int:pk>/edit/", views.LegEditView.as_view(), name="leg-edit"),
    path("shipments/<str:reference>/legs/<int:pk>/remove/", views.LegRemoveView.as_view(), name="leg-remove"),
    path("shipments/<str:reference>/events/", views.EventAddView.as_view(), name="event-add"),
    path("shipments/<str:reference>/freight/", views.FreightPanelView.as_view(), name="freight-panel"),
    path("shipments/<str:reference>/freight/book/", views.FreightBookView.as_view(), name="freight-book"),
    path("sites/", views.SiteListView.as_view(), name="site-list"),
    path("sites/new/", views.SiteCreateView.as_view(), name="site-create"),
    path("freight-rates/", views.FreightRateListView.as_view(), name="rate-list"),
    path("freight-rates/new/", views.FreightRateCreateView.as_view(), name="rate-create"),
    path("freight-rates/<int:pk>/edit/", views.FreightRateUpdateView.as_view(), name="rate-update"),
    path("exchange-rates/new/", views.ExchangeRateCreateView.as_view(), name="fx-create"),
    path("exchange-rates/<int:pk>/edit/", views.ExchangeRateUpdateView.as_view(), name="fx-update"),
]
