"""Browser pages for shipments, sites and freight rates, by subject: the shipment list and forms
(`shipments`), the shipment page (`detail`) and the views its forms post to (lines, packages,
legs, milestones, status), freight, sites. The URLs name the views from here."""

from .detail import ShipmentDetailView, render_shipment
from .freight import (
    ExchangeRateCreateView,
    ExchangeRateUpdateView,
    FreightBookView,
    FreightPanelView,
    FreightRateCreateView,
    FreightRateListView,
    FreightRateUpdateView,
)
from .legs import LegAddView, LegEditView, LegRemoveView
from .lines import LineAddView, LineRemoveView
from .lines_bulk import LinesBulkView
from .milestones import EventAddView
from .packages import PackageAddView, PackageRemoveView
from .shipments import (
    ShipmentBulkView,
    ShipmentCreateView,
    ShipmentListView,
    ShipmentUpdateView,
)
from .sites import SiteCreateView, SiteListView
from .status import AmendView, TransitionView

__all__ = [
    "AmendView",
    "EventAddView",
    "ExchangeRateCreateView",
    "ExchangeRateUpdateView",
    "FreightBookView",
    "FreightPanelView",
    "FreightRateCreateView",
    "FreightRateListView",
    "FreightRateUpdateView",
    "LegAddView",
    "LegEditView",
    "LegRemoveView",
    "LineAddView",
    "LineRemoveView",
    "LinesBulkView",
    "PackageAddView",
    "PackageRemoveView",
    "ShipmentBulkView",
    "ShipmentCreateView",
    "ShipmentDetailView",
    "ShipmentListView",
    "ShipmentUpdateView",
    "SiteCreateView",
    "SiteListView",
    "TransitionView",
    "render_shipment",
]
