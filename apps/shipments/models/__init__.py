from .freight import DestinationTax, ExchangeRate, FreightRate, HubHandlingRate, TariffRate
from .shipments import (
    EndUseFlag,
    Incoterm,
    LineSerial,
    Package,
    PackageItem,
    PackageType,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    ShipmentStatus,
    TransportMode,
)
from .sites import Site, SiteKind
from .tracking import EventCode, Leg, LegRole, TrackingEvent

__all__ = [
    "DestinationTax",
    "EndUseFlag",
    "EventCode",
    "ExchangeRate",
    "FreightRate",
    "HubHandlingRate",
    "Incoterm",
    "Leg",
    "LegRole",
    "LineSerial",
    "Package",
    "PackageItem",
    "PackageType",
    "PartyRole",
    "Shipment",
    "ShipmentLine",
    "ShipmentParty",
    "ShipmentStatus",
    "Site",
    "SiteKind",
    "TariffRate",
    "TrackingEvent",
    "TransportMode",
]
