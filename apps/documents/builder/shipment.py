"""What the documents read of a shipment: the shipment with everything they need loaded at once,
its parties by role, each line's ECCN, outcome and licence (from the latest compliance check, else
the part's classification), and the number reserved for its commercial invoice."""

from __future__ import annotations

from django.db.models import Prefetch

from apps.accounts.models import Organisation
from apps.compliance.models import CheckLineResult, PartClassification
from apps.compliance.services import latest_check
from apps.shipments.models import LineSerial, Package, PackageItem, Shipment, ShipmentLine

from ..engines import eei
from ..models import DocumentNumber, DocumentType

LICENCE_CODES = eei.LICENCE_EXCEPTION_CODES  # symbol → AES code, as the invoice shows it: "ACA (C68)"


def load_shipment(shipment: Shipment) -> Shipment:
    """The shipment with everything the documents read (parties, lines, packages, serials, legs),
    in a fixed number of queries; a page asking about several document types loads it once."""
    cache = getattr(shipment, "_prefetched_objects_cache", {})
    if {"parties", "lines", "packages", "legs"} <= set(cache):
        return shipment  # the caller (e.g. the shipment page) already loaded everything
    return (
        Shipment.objects.select_related("origin", "destination", "owner")
        .prefetch_related(
            Prefetch(
                "parties__organisation",
                queryset=Organisation.objects.prefetch_related("registrations", "contacts"),
            ),
            # A join, not an IN list of every part: large shipments stay one query (and SQLite-safe).
            Prefetch("lines", queryset=ShipmentLine.objects.select_related("part__manufacturer")),
            Prefetch(
                "packages",
                queryset=Package.objects.prefetch_related(
                    Prefetch("items", queryset=PackageItem.objects.select_related("line__part")),
                    Prefetch(
                        "serials", queryset=LineSerial.objects.select_related("unit").order_by("unit__serial")
                    ),
                ),
            ),
            "legs",
        )
        .get(pk=shipment.pk)
    )


def parties_by_role(shipment: Shipment) -> dict[str, Organisation]:
    """role → the organisation named in it (from the loaded parties)."""
    return {p.role: p.organisation for p in shipment.parties.all()}


def line_compliance(shipment: Shipment) -> dict[int, tuple[str, str, str]]:
    """line id → (ECCN, outcome, licence text) from the latest check, else current classification."""
    check = latest_check(shipment)
    found: dict[int, tuple[str, str, str]] = {}
    if check is not None:
        for r in CheckLineResult.objects.filter(compliance_check=check).select_related("licence"):
            licence = (
                r.licence.number
                if r.licence
                else (
                    f"{r.licence_exception} ({LICENCE_CODES[r.licence_exception]})"
                    if r.licence_exception in LICENCE_CODES
                    else r.licence_exception or ("NLR" if r.outcome == "NLR" else "")
                )
            )
            found[r.line_id] = (r.eccn, r.outcome, licence)
    classifications = {
        c.part_id: c.eccn
        for c in PartClassification.objects.filter(part__in=shipment.lines.values("part_id"), is_current=True)
    }
    for line in shipment.lines.all():
        if line.pk not in found and classifications.get(line.part_id):
            found[line.pk] = (classifications[line.part_id], "", "")
    return found


def reserved_invoice_number(shipment: Shipment) -> str:
    """The number reserved for the shipment's commercial invoice (every version carries it), "" until
    a version of the invoice exists."""
    invoice = DocumentType.COMMERCIAL_INVOICE
    reserved = DocumentNumber.objects.filter(
        shipment=shipment, doc_type=invoice, shipment__documents__doc_type=invoice
    )
    return reserved.values_list("number", flat=True).first() or ""
