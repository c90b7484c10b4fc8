from django.urls import path

from .views import expected, flow, imports, locations, scanning, stock
from .views.receipts import receipt_urlpatterns

app_name = "warehouse"

urlpatterns = [
    path("", stock.StockListView.as_view(), name="stock-list"),
    path("lots/", stock.LotListView.as_view(), name="lot-list"),
    path("lots/<int:pk>/adjust/", stock.LotAdjustView.as_view(), name="lot-adjust"),
    path("find/", stock.UnitFindView.as_view(), name="unit-find"),
    path("units/<int:pk>/", stock.UnitDetailView.as_view(), name="unit-detail"),
    path("units/<int:pk>/status/", stock.UnitStatusView.as_view(), name="unit-status"),
    path("locations/", locations.LocationListView.as_view(), name="location-list"),
    path("locations/new/", locations.LocationCreateView.as_view(), name="location-create"),
    path("locations/<int:pk>/", locations.LocationDetailView.as_view(), name="location-detail"),
    path("locations/<int:pk>/count/", locations.LocationCountView.as_view(), name="location-count"),
    path("expected/", expected.ExpectedView.as_view(), name="expected"),
    path("receive/", flow.ReceiveView.as_view(), name="receive"),
    path("receive/<str:reference>/check/", scanning.ReceiveScanCheckView.as_view(), name="receive-check"),
    path("pack/<str:reference>/check/", scanning.PackScanCheckView.as_view(), name="pack-check"),
    path("move/", flow.MoveView.as_view(), name="move"),
    path("allocate/", flow.AllocateView.as_view(), name="allocate"),
    path("pick/", flow.PickView.as_view(), name="pick"),
    path("ship/", flow.ShipView.as_view(), name="ship"),
    path("movements/", stock.MovementListView.as_view(), name="movement-list"),
    path("import/", imports.SerialImportView.as_view(), name="serial-import"),
    # Receiving against advance notices, the discrepancies and packing (views/receipts.py).
    *receipt_urlpatterns,
]
