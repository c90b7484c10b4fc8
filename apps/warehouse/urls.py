from django.urls import path

from . import views, views_imports
from .views_receipts import receipt_urlpatterns

app_name = "warehouse"

urlpatterns = [
    path("", views.StockListView.as_view(), name="stock-list"),
    path("lots/", views.LotListView.as_view(), name="lot-list"),
    path("lots/<int:pk>/adjust/", views.LotAdjustView.as_view(), name="lot-adjust"),
    path("find/", views.UnitFindView.as_view(), name="unit-find"),
    path("units/<int:pk>/", views.UnitDetailView.as_view(), name="unit-detail"),
    path("units/<int:pk>/status/", views.UnitStatusView.as_view(), name="unit-status"),
    path("locations/", views.LocationListView.as_view(), name="location-list"),
    path("locations/new/", views.LocationCreateView.as_view(), name="location-create"),
    path("locations/<int:pk>/", views.LocationDetailView.as_view(), name="location-detail"),
    path("locations/<int:pk>/count/", views.LocationCountView.as_view(), name="location-count"),
    path("receive/", views.ReceiveView.as_view(), name="receive"),
    path("move/", views.MoveView.as_view(), name="move"),
    path("allocate/", views.AllocateView.as_view(), name="allocate"),
    path("pick/", views.PickView.as_view(), name="pick"),
    path("ship/", views.ShipView.as_view(), name="ship"),
    path("movements/", views.MovementListView.as_view(), name="movement-list"),
    path("import/", views_imports.SerialImportView.as_view(), name="serial-import"),
    # Receiving against advance notices, and the discrepancies (apps/warehouse/views_receipts.py).
    *receipt_urlpatterns,
]
