"""Writes for shipments: creation, lines, packages, legs, events and the one status-changing service."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, ProtectedError, Sum
from django.utils import timezone

from apps.accounts.models import Connection, Organisation, OrganisationKind, User
from apps.catalog.models import Part, Unit, UnitStatus
from apps.catalog.units import units_for
from apps.core.audit import record_transition
from apps.core.sequences import next_reference
from apps.core.validators import text_problem

from . import hooks, readiness, selectors
from .engines import workflow
from .models import (
    EventCode,
    ExchangeRate,
    FreightRate,
    Leg,
    LegRole,
    LineSerial,
    Package,
    PackageItem,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    ShipmentStatus,
    Site,
    SiteKind,
    TrackingEvent,
)


class RecordPartyProblem(str):
    """A guard problem that is a missing importer / exporter of record: still plain text, marked
    so that the API's 409 can link to the record-party assessment."""


class TransitionRefused(Exception):
    """A status change the flow or its guard does not allow; the API answers 409."""

    def __init__(self, message: str, *, reasons: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.reasons = reasons or [message]
        self.missing_record_party = any(isinstance(r, RecordPartyProblem) for r in self.reasons)


class TransitionForbidden(TransitionRefused):
    """The move exists, but the actor's role may not make it: a 403, not a 409 (nothing about the
    shipment's state would change the answer)."""


def _owner_for(actor: User) -> Organisation:
    if actor.organisation_id:
        return actor.organisation
    return Organisation.objects.get(kind=OrganisationKind.OPERATOR)


def _require_draft(shipment: Shipment, what: str) -> None:
    if shipment.status != ShipmentStatus.DRAFT:
        raise ValidationError(
            {
                "shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}; "
                f"{what} only in draft."
            }
        )


def _save(instance, **fields):
    for name, value in fields.items():
        setattr(instance, name, value)
    instance.full_clean()
    instance.save()
    return instance


# --- shipments and parties ------------------------------------------------------------------


@transaction.atomic
def shipment_create(
    *, actor: User, fields: dict[str, Any], parties: dict[str, Organisation] | None = None
) -> Shipment:
    """Create a draft shipment with a new reference (SHP-YYYY-NNNNNN) and its parties."""
    shipment = Shipment(owner=_owner_for(actor), created_by=actor if actor.pk else None, **fields)
    shipment.reference = "pending"
    shipment.full_clean(exclude=["reference"])
    shipment.reference = next_reference("SHP")
    shipment.save()
    for role, organisation in (parties or {}).items():
        if organisation is not None:
            party_set(shipment=shipment, role=role, organisation=organisation, actor=actor)
    selectors.shipment_refresh_eta(shipment)
    return shipment


@transaction.atomic
def shipment_update(*, shipment: Shipment, fields: dict[str, Any]) -> Shipment:
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    changes_terms = set(fields) - {"instructions", "required_by"}
    if changes_terms:
        _require_draft(shipment, "terms, route and dates change")
    before = {name: getattr(shipment, name) for name in changes_terms}
    _save(shipment, **fields)
    if changed := sorted(name for name, value in before.items() if getattr(shipment, name) != value):
        labels = ", ".join(str(Shipment._meta.get_field(name).verbose_name) for name in changed)
        hooks.changed(shipment, f"The shipment's {labels} changed.")
    selectors.shipment_refresh_eta(shipment)
    return shipment


@transaction.atomic
def party_set(
    *, shipment: Shipment, role: str, organisation: Organisation | None, actor: User | None
) -> ShipmentParty | None:
    """Name (or, with None, remove) the organisation acting in `role` on the shipment.

    Who may name whom (issue 9): operator staff name any active organisation; a partner names
    parties only on its own shipments, and only its own organisation or one the operator has
    connected it with (`Organisation.objects.nameable_by`). On a partner's shipment every party is
    the owner or connected with it, whoever names it. `actor` None is the system (demo data,
    commands), acting for the operator."""
    if role not in PartyRole.values:
        raise ValidationError(
            {"role": f"Unknown party role {role!r}; use one of {', '.join(PartyRole.values)}."}
        )
    _require_draft(shipment, "parties change")
    existing = ShipmentParty.objects.filter(shipment=shipment, role=role).first()
    if existing is not None and organisation is not None and existing.organisation_id == organisation.pk:
        return existing  # unchanged: a party kept as it was is never refused
    _check_party(shipment, PartyRole(role), organisation, actor)
    role_label = PartyRole(role).label
    if organisation is None:
        if existing:
            existing.delete()
            hooks.changed(shipment, f"The {role_label.lower()} ({existing.organisation}) was removed.", actor)
        return None
    if existing is None:
        party = _save(ShipmentParty(shipment=shipment, role=role, organisation=organisation))
        hooks.changed(shipment, f"{organisation} was named as {role_label.lower()}.", actor)
        return party
    was = existing.organisation
    party = _save(existing, organisation=organisation)
    hooks.changed(shipment, f"The {role_label.lower()} changed from {was} to {organisation}.", actor)
    return party


def _check_party(
    shipment: Shipment, role: PartyRole, organisation: Organisation | None, actor: User | None
) -> None:
    role_name = role.label.lower()
    if actor is not None and not actor.is_operator_staff:
        if actor.organisation_id != shipment.owner_id:
            raise ValidationError(
                {
                    "organisation": f"Only {shipment.owner} and Rackpass name the parties of "
                    f"{shipment.reference} (here the {role_name})."
                }
            )
        nameable = Organisation.objects.nameable_by(actor)
        if organisation is not None and not nameable.filter(pk=organisation.pk).exists():
            raise ValidationError(
                {
                    "organisation": f"The {role_name} must be your organisation or one Rackpass has "
                    "connected it with."
                }
            )
    if organisation is None:
        return
    if not organisation.is_active:
        raise ValidationError(
            {"organisation": f"{organisation} is deactivated; it cannot be the {role_name}."}
        )
    owner = shipment.owner
    unconnected = (
        owner.kind != OrganisationKind.OPERATOR
        and organisation.pk != owner.pk
        and not Connection.objects.between(owner, organisation).exists()
    )
    if unconnected:
        raise ValidationError(
            {
                "organisation": f"{organisation} cannot be the {role_name} of {shipment.reference}: "
                f"connect {owner} with it first (organisation page, Connections)."
            }
        )


# --- lines and serials ----------------------------------------------------------------------


@transaction.atomic
def line_add(
    *,
    shipment: Shipment,
    part: Part,
    quantity: int,
    fields: dict[str, Any] | None = None,
    serials: list[str] | None = None,
    actor: User | None = None,
) -> ShipmentLine:
    """Add a line; trade data is copied from the part unless given (and stays editable)."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    _require_draft(shipment, "lines change")
    fields = dict(fields or {})
    _check_line_parties(shipment, fields, actor)
    if "unit_value" not in fields or fields["unit_value"] is None:
        if part.currency != shipment.currency:
            raise ValidationError(
                {
                    "unit_value": (
                        f"{part} is priced in {part.currency} but the shipment is in {shipment.currency}; "
                        "give the unit value in the shipment currency."
                    )
                }
            )
        fields["unit_value"] = part.unit_value
    fields.setdefault("description", trade_description(part))
    fields.setdefault("country_of_origin", part.country_of_origin)
    fields.setdefault("hs_code", part.hs_code)
    for key in ("description", "country_of_origin", "hs_code"):
        if not fields[key]:
            fields[key] = {
                "description": trade_description(part),
                "country_of_origin": part.country_of_origin,
                "hs_code": part.hs_code,
            }[key]
    next_number = (shipment.lines.aggregate(n=Max("line_number"))["n"] or 0) + 1
    line = _save(
        ShipmentLine(shipment=shipment, part=part, line_number=next_number, quantity=quantity), **fields
    )
    if serials:
        serials_set(line=line, serials=serials)
    hooks.changed(shipment, f"Line {line.line_number} ({part}) was added.", actor)
    return line


LINE_PARTY_ROLES = {"shipper": PartyRole.SHIPPER, "exporter_of_record": PartyRole.EXPORTER_OF_RECORD}


def _check_line_parties(
    shipment: Shipment, fields: dict[str, Any], actor: User | None, line: ShipmentLine | None = None
) -> None:
    """A line's own shipper or exporter of record is named as a shipment's party is: by the owner
    or the operator, an active organisation connected with the owner (`_check_party`). Keeping the
    one already on the line is never refused."""
    for field, role in LINE_PARTY_ROLES.items():
        organisation = fields.get(field)
        if organisation is None or (line is not None and getattr(line, f"{field}_id") == organisation.pk):
            continue
        try:
            _check_party(shipment, role, organisation, actor)
        except ValidationError as exc:
            raise ValidationError({field: exc.message_dict["organisation"]}) from exc


def trade_description(part: Part) -> str:
    """Make, model and part number, as a commercial invoice describes goods."""
    text = part.name
    if part.manufacturer.name.lower() not in text.lower():
        text = f"{part.manufacturer.name} {text}"
    if part.part_number.lower() not in text.lower():
        text = f"{text}, P/N {part.part_number}"
    return text[:300]


@transaction.atomic
def line_update(*, line: ShipmentLine, fields: dict[str, Any], actor: User | None = None) -> ShipmentLine:
    line = ShipmentLine.objects.select_for_update().select_related("shipment").get(pk=line.pk)
    _require_draft(line.shipment, "lines change")
    _check_line_parties(line.shipment, fields, actor, line)
    if "quantity" in fields:
        packed = line.package_items.aggregate(n=Sum("quantity"))["n"] or 0
        serial_count = line.serials.count()
        if fields["quantity"] < max(packed, serial_count):
            raise ValidationError(
                {
                    "quantity": (
                        f"Line {line.line_number} already has {packed} packed and {serial_count} serial "
                        "numbers; unpack or remove serials first."
                    )
                }
            )
    declared = line.country_of_origin
    before = {name: getattr(line, name) for name in fields}
    line = _save(line, **fields)
    if changed := [name for name, value in before.items() if getattr(line, name) != value]:
        labels = ", ".join(str(ShipmentLine._meta.get_field(name).verbose_name) for name in changed)
        hooks.changed(line.shipment, f"Line {line.line_number} changed ({labels}).", actor)
    if line.country_of_origin != declared:
        # A correction of the line's declaration: the units it declared (never received, on no
        # other line) follow; a unit received from its own inbound line keeps that origin.
        declared_here = Unit.objects.filter(
            line_serials__line=line, status=UnitStatus.EXPECTED, country_of_origin=declared
        ).exclude(line_serials__line__in=ShipmentLine.objects.exclude(pk=line.pk))
        declared_here.update(country_of_origin=line.country_of_origin)
    return line


@transaction.atomic
def line_remove(*, line: ShipmentLine) -> None:
    _require_draft(line.shipment, "lines change")
    try:
        line.delete()
    except ProtectedError as exc:
        # Another app's record holds on to the line (warehouse stock allocated to it …): refused
        # with what holds it, never a 500.
        held_by = ", ".join(sorted({str(obj._meta.verbose_name_plural) for obj in exc.protected_objects}))
        message = f"Line {line.line_number} is still referred to by {held_by}: release those first."
        raise ValidationError({"line": message}) from exc
    hooks.changed(line.shipment, f"Line {line.line_number} ({line.part}) was removed.")


@transaction.atomic
def serials_set(*, line: ShipmentLine, serials: list[str]) -> list[LineSerial]:
    """Replace a line's serial numbers. At most `quantity` of them, no duplicates, no blanks; each
    is a unit (`catalog.Unit`) that no other live shipment carries (issue 13: one box, one place)."""
    cleaned = [s.strip() for s in serials]
    errors = []
    if not line.part.is_serialised:
        errors.append(f"{line.part} is not serialised.")
    if any(not s for s in cleaned):
        errors.append("Serial numbers may not be blank.")
    counts = Counter(s.lower() for s in cleaned)  # "qt1" and "QT1" are one box
    duplicates = sorted({s for s in cleaned if counts[s.lower()] > 1})
    if duplicates:
        errors.append(f"Repeated serial numbers: {', '.join(duplicates[:10])}.")
    if len(cleaned) > line.quantity:
        errors.append(f"{len(cleaned)} serial numbers for a quantity of {line.quantity}.")
    errors.extend(
        f"Serial number {s[:40]!r}: {problem}" for s in cleaned if (problem := text_problem(s, "identifier"))
    )
    if errors:
        raise ValidationError({"serials": errors})
    units = units_for(part=line.part, serials=cleaned, owner_id=goods_owner_id(line))
    _refuse_units_elsewhere(line, units)
    # A unit first named on this line takes the line's declared origin; one already declared (an
    # outbound line of units received at a hub) keeps its own: origin belongs to the box.
    if undeclared := [unit for unit in units if not unit.country_of_origin]:
        Unit.objects.filter(pk__in=[unit.pk for unit in undeclared]).update(
            country_of_origin=line.country_of_origin
        )
        for unit in undeclared:
            unit.country_of_origin = line.country_of_origin
    kept = set(line.serials.values_list("unit_id", flat=True))
    line.serials.exclude(unit__in=units).delete()
    LineSerial.objects.bulk_create(
        [LineSerial(line=line, unit=unit) for unit in units if unit.pk not in kept]
    )
    return list(line.serials.select_related("unit"))


# A unit on a shipment that is still under way (or being planned) is not free for another one.
LIVE_STATUSES = [
    status for status in ShipmentStatus if status not in (ShipmentStatus.CANCELLED, ShipmentStatus.DELIVERED)
]


def _refuse_units_elsewhere(line: ShipmentLine, units: list) -> None:
    """A box is on one live shipment at a time: the same GPU server on two shipments is a mistake
    (or worse). Another organisation's shipment is not named to a partner who cannot see it."""
    taken = (
        LineSerial.objects.filter(unit__in=units, line__shipment__status__in=LIVE_STATUSES)
        .exclude(line__shipment_id=line.shipment_id)
        .select_related("unit", "line__shipment")
    )
    problems = [
        f"Serial {row.unit.serial} is already on "
        + (
            f"{row.line.shipment.reference} (line {row.line.line_number})"
            if row.line.shipment.owner_id == line.shipment.owner_id
            else "another organisation's shipment"
        )
        + "; remove it there first."
        for row in taken[:10]
    ]
    if problems:
        raise ValidationError({"serials": problems})


def goods_owner_id(line: ShipmentLine) -> int:
    """Whose the goods of a line are (its new units, its pieces received into a warehouse): the
    line's own shipper, else the shipment's shipper, else its owner."""
    if line.shipper_id:
        return line.shipper_id
    shipper = (
        line.shipment.parties.filter(role=PartyRole.SHIPPER).values_list("organisation_id", flat=True).first()
    )
    return shipper or line.shipment.owner_id


# --- packages and legs ----------------------------------------------------------------------


@transaction.atomic
def package_add(
    *,
    shipment: Shipment,
    fields: dict[str, Any],
    items: list[tuple[ShipmentLine, int]],
    serials: list[str] | None = None,
) -> Package:
    """Pack units of lines (and, for serialised parts, their serial numbers) into a new package."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if shipment.status not in (
        ShipmentStatus.DRAFT,
        ShipmentStatus.COMPLIANCE_REVIEW,
        ShipmentStatus.APPROVED,
    ):
        raise ValidationError(
            {
                "shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}; "
                "packing changes only before booking."
            }
        )
    if not items:
        raise ValidationError({"items": "A package contains at least one line."})
    packed = dict(
        PackageItem.objects.filter(line__shipment=shipment).values_list("line_id").annotate(n=Sum("quantity"))
    )
    errors = []
    for line, quantity in items:
        if line.shipment_id != shipment.pk:
            errors.append(f"Line {line.pk} is not on {shipment.reference}.")
        elif quantity < 1:
            errors.append(f"Line {line.line_number}: quantity must be at least 1.")
        elif packed.get(line.pk, 0) + quantity > line.quantity:
            left = line.quantity - packed.get(line.pk, 0)
            errors.append(f"Line {line.line_number}: only {left} of {line.quantity} left to pack.")
    if errors:
        raise ValidationError({"items": errors})
    number = (shipment.packages.aggregate(n=Max("number"))["n"] or 0) + 1
    package = _save(Package(shipment=shipment, number=number), **fields)
    PackageItem.objects.bulk_create(
        [PackageItem(package=package, line=line, quantity=q) for line, q in items]
    )
    if serials:
        _pack_serials(package, items, serials)
    return package


def _pack_serials(package: Package, items: list[tuple[ShipmentLine, int]], serials: list[str]) -> None:
    lines = {line.pk: (line, quantity) for line, quantity in items}
    found = {
        s.unit.serial: s
        for s in LineSerial.objects.filter(line_id__in=lines, unit__serial__in=serials).select_related("unit")
    }
    errors = []
    unknown = [s for s in serials if s not in found]
    if unknown:
        errors.append(f"Not serial numbers of these lines: {', '.join(unknown[:10])}.")
    elsewhere = [s for s in found.values() if s.package_id and s.package_id != package.pk]
    if elsewhere:
        errors.append(f"Already packed elsewhere: {', '.join(s.serial for s in elsewhere[:10])}.")
    per_line = Counter(s.line_id for s in found.values())
    for line_id, count in per_line.items():
        line, quantity = lines[line_id]
        if count > quantity:
            errors.append(f"Line {line.line_number}: {count} serials for {quantity} units in this package.")
    if errors:
        raise ValidationError({"serials": errors})
    LineSerial.objects.filter(pk__in=[s.pk for s in found.values()]).update(package=package)


@transaction.atomic
def package_remove(*, package: Package) -> None:
    if package.shipment.status not in (
        ShipmentStatus.DRAFT,
        ShipmentStatus.COMPLIANCE_REVIEW,
        ShipmentStatus.APPROVED,
    ):
        raise ValidationError({"shipment": "Packing changes only before booking."})
    package.delete()


@transaction.atomic
def leg_add(*, shipment: Shipment, fields: dict[str, Any], lines: list[ShipmentLine] | None = None) -> Leg:
    """Add a leg, checked as a link of the route (`_route_problems`)."""
    shipment = Shipment.objects.select_for_update().select_related("destination").get(pk=shipment.pk)
    if shipment.status in workflow.TERMINAL:
        raise ValidationError(
            {"shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}."}
        )
    sequence = (shipment.legs.aggregate(n=Max("sequence"))["n"] or 0) + 1
    leg = Leg(shipment=shipment, sequence=fields.pop("sequence", None) or sequence)
    return _leg_save(shipment, leg, fields, lines or [])


@transaction.atomic
def leg_update(*, leg: Leg, fields: dict[str, Any], lines: list[ShipmentLine] | None = None) -> Leg:
    """Change a leg; the route is checked again with the leg as changed."""
    # The shipment first, as leg_add locks it: two writers of one route queue instead of both passing.
    shipment = Shipment.objects.select_for_update().select_related("destination").get(pk=leg.shipment_id)
    leg = Leg.objects.select_for_update().get(pk=leg.pk)
    return _leg_save(shipment, leg, fields, list(leg.lines.all()) if lines is None else lines)


@transaction.atomic
def leg_remove(*, leg: Leg) -> None:
    """Remove a planned leg. A leg that has departed, or has milestones, is the shipment's history:
    it stays (change its dates instead)."""
    shipment = Shipment.objects.select_for_update().get(pk=leg.shipment_id)
    leg = Leg.objects.select_for_update().get(pk=leg.pk)
    if shipment.status in workflow.TERMINAL:
        raise ValidationError({"leg": f"{shipment.reference} is {shipment.get_status_display().lower()}."})
    if leg.actual_departure is not None or leg.events.exists():
        raise ValidationError(
            {"leg": f"Leg {leg.sequence} has departed or has milestones: it is part of the record and stays."}
        )
    leg.delete()


def _leg_save(shipment: Shipment, leg: Leg, fields: dict[str, Any], lines: list[ShipmentLine]) -> Leg:
    for name, value in fields.items():
        setattr(leg, name, value)
    leg.full_clean()
    if any(line.shipment_id != shipment.pk for line in lines):
        raise ValidationError({"lines": "Every line must belong to this shipment."})
    others = list(
        shipment.legs.exclude(pk=leg.pk).select_related("origin", "destination").prefetch_related("lines")
    )
    problems = _route_problems(shipment, leg, lines, others)
    if problems:
        raise ValidationError(problems)
    leg.save()
    leg.lines.set(lines)
    selectors.shipment_refresh_eta(shipment)
    return leg


HUB_KINDS = frozenset({SiteKind.WAREHOUSE})
GATEWAY_KINDS = frozenset({SiteKind.AIRPORT, SiteKind.SEAPORT})


def _route_problems(
    shipment: Shipment, leg: Leg, lines: list[ShipmentLine], others: list[Leg]
) -> dict[str, list[str]]:
    """What keeps `leg` from being a link of the shipment's route, by field. The route: inbound
    legs bring each supplier's lines to one hub (each line once), the main carriage leaves from
    that hub and reaches the destination — or an airport or seaport of its country, from which
    an onward leg reaches it."""
    problems: dict[str, list[str]] = {}

    def refuse(field: str, message: str) -> None:
        problems.setdefault(field, []).append(message)

    destination = shipment.destination
    main = next((other for other in others if other.role == LegRole.MAIN), None)
    inbound = [other for other in others if other.role == LegRole.INBOUND]
    hub_leg = inbound[0] if inbound else None
    if leg.role == LegRole.INBOUND:
        if leg.origin_id == destination.pk:
            refuse(
                "origin",
                f"An inbound leg never starts at the shipment's destination, {destination}: "
                "it brings a supplier's goods to the hub.",
            )
        if leg.destination.kind not in HUB_KINDS:
            refuse(
                "destination",
                f"An inbound leg ends at the consolidation hub, one of our warehouses; {leg.destination} "
                f"is a {leg.destination.get_kind_display().lower()}.",
            )
        elif hub_leg is not None and leg.destination_id != hub_leg.destination_id:
            refuse(
                "destination",
                f"Inbound legs end at one hub: leg {hub_leg.sequence} ends at {hub_leg.destination}.",
            )
        elif main is not None and leg.destination_id != main.origin_id:
            refuse(
                "destination",
                f"The main carriage (leg {main.sequence}) starts at {main.origin}; inbound legs end there.",
            )
        carried = {line.pk: other for other in inbound for line in other.lines.all()}
        for line in sorted(lines, key=lambda line: line.line_number):
            if line.pk in carried:
                refuse(
                    "lines",
                    f"Line {line.line_number} is carried to the hub by leg "
                    f"{carried[line.pk].sequence} already.",
                )
    elif leg.role == LegRole.MAIN:
        if main is not None:
            refuse("role", f"Leg {main.sequence} is the main carriage already; a shipment has one.")
        if hub_leg is not None and leg.origin_id != hub_leg.destination_id:
            refuse(
                "origin",
                f"The main carriage starts at the hub the inbound legs end at, {hub_leg.destination}.",
            )
        gateway = leg.destination.kind in GATEWAY_KINDS and leg.destination.country == destination.country
        if leg.destination_id != destination.pk and not gateway:
            refuse(
                "destination",
                f"The main carriage ends at the shipment's destination, {destination} (or at an airport "
                f"or seaport in {destination.get_country_display()}, for an onward leg to it).",
            )
    elif leg.role == LegRole.ONWARD:
        if leg.destination_id != destination.pk:
            refuse("destination", f"An onward leg ends at the shipment's destination, {destination}.")
        after_gateway = main is not None and main.destination_id != destination.pk
        if after_gateway and leg.origin_id != main.destination_id:
            refuse("origin", f"The onward leg starts where the main carriage ends, {main.destination}.")
    return problems


# --- the status flow ------------------------------------------------------------------------

TRANSITION_CAPABILITY = {
    ShipmentStatus.COMPLIANCE_REVIEW: "shipments.submit",
    ShipmentStatus.DRAFT: "shipments.submit",
    ShipmentStatus.APPROVED: "shipments.approve",
    ShipmentStatus.BOOKED: "shipments.book",
    ShipmentStatus.IN_TRANSIT: "shipments.track",
    ShipmentStatus.AT_CUSTOMS: "shipments.track",
    ShipmentStatus.CLEARED: "shipments.track",
    ShipmentStatus.DELIVERED: "shipments.track",
    ShipmentStatus.ON_HOLD: "shipments.hold",
    ShipmentStatus.CANCELLED: "shipments.cancel",
}
RELEASE = "release"
# Approved back to draft is an amendment: it voids issued documents and reopens a compliance
# answer, so it is the coordinator's act, not every submitter's (see `transition_capability`).
AMEND_CAPABILITY = "shipments.amend"


def transition_capability(current: str, target: str) -> str:
    """The capability that moving a shipment from `current` to `target` needs."""
    if workflow.is_amendment(workflow.Status(current), workflow.Status(target)):
        return AMEND_CAPABILITY
    return TRANSITION_CAPABILITY[ShipmentStatus(target)]


def guard_problems(shipment: Shipment, target: str) -> list[str]:
    """What stops `shipment` from entering `target` (empty when nothing does)."""
    problems: list[str] = []
    if target == ShipmentStatus.COMPLIANCE_REVIEW:
        lines = list(shipment.lines.all())
        if not lines:
            problems.append("The shipment has no lines.")
        roles = set(shipment.parties.values_list("role", flat=True))
        for role in (PartyRole.SHIPPER, PartyRole.CONSIGNEE):
            if role not in roles:
                problems.append(f"No {PartyRole(role).label.lower()} is named.")
        problems.extend(RecordPartyProblem(p) for p in selectors.record_party_problems(shipment))
        # What the documents will need of the terms (CIP/CIF cover, the C rules' charges).
        problems.extend(readiness.review_problems(shipment))
    elif target == ShipmentStatus.APPROVED:
        problems.extend(readiness.review_problems(shipment))
        problems.extend(hooks.guard_problems(target, shipment))  # compliance: a passing check
    elif target == ShipmentStatus.BOOKED:
        problems.extend(selectors.packing_problems(shipment))
        if not shipment.legs.filter(role=LegRole.MAIN).exists():
            problems.append("No main-carriage leg is planned.")
        problems.extend(hooks.guard_problems(target, shipment))  # documents: required ones issued
    elif target == ShipmentStatus.IN_TRANSIT:
        # compliance: the goods leave only on a current, passing answer (not one gone stale)
        problems.extend(hooks.guard_problems(target, shipment))
    elif target == ShipmentStatus.CANCELLED:
        problems.extend(
            workflow.cancel_problems(
                workflow.Status(shipment.status),
                held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
                departed_at=departed_at(shipment),
            )
        )
    return problems


def departed_at(shipment: Shipment) -> dt.datetime | None:
    """When the goods left on the main carriage by the evidence: the earliest departure milestone
    not on an inbound leg, or actual departure of a leg that is not inbound (None: not departed)."""
    event = (
        shipment.events.filter(code=EventCode.DEPARTED)
        .exclude(leg__role=LegRole.INBOUND)
        .order_by("occurred_at")
        .values_list("occurred_at", flat=True)
        .first()
    )
    leg = (
        shipment.legs.filter(actual_departure__isnull=False)
        .exclude(role=LegRole.INBOUND)
        .order_by("actual_departure")
        .values_list("actual_departure", flat=True)
        .first()
    )
    return min((t for t in (event, leg) if t is not None), default=None)


@transaction.atomic
def shipment_transition(
    *,
    shipment: Shipment,
    target: str,
    actor: User | None,
    reason: str = "",
    hold_kind: str = "",
    check_capability: bool = True,
) -> Shipment:
    """The only way a shipment's status changes: lock, check flow and guard, save, audit.

    `target` is a status, or "release" to return a held shipment to where it was held.
    """
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    current = ShipmentStatus(shipment.status)
    reason = (reason or "").strip()
    if target == RELEASE:
        if current != ShipmentStatus.ON_HOLD:
            raise TransitionRefused(f"{shipment.reference} is not on hold.")
        capability = (
            "shipments.release_compliance_hold"
            if shipment.hold_kind == workflow.HoldKind.COMPLIANCE
            else "shipments.release_customs_hold"
        )
        new_status = ShipmentStatus(shipment.held_from)
    else:
        try:
            new_status = ShipmentStatus(target)
        except ValueError as exc:
            raise TransitionRefused(f"Unknown status {target!r}.") from exc
        if not workflow.can_move(workflow.Status(current), workflow.Status(new_status)):
            allowed = ", ".join(sorted(workflow.TRANSITIONS[workflow.Status(current)])) or "none"
            message = (
                f"{shipment.reference} cannot go from {current.label.lower()} to {new_status.label.lower()} "
                f"(allowed: {allowed}{', release' if current == ShipmentStatus.ON_HOLD else ''})."
            )
            # Back to draft from past review is an amendment: say why this one is not possible.
            why = _amend_problems(shipment) if new_status == ShipmentStatus.DRAFT else []
            raise TransitionRefused(message, reasons=why or None)
        capability = transition_capability(current, new_status)
    amending = target != RELEASE and workflow.is_amendment(
        workflow.Status(current), workflow.Status(new_status)
    )
    if check_capability and actor is not None and not actor.can(capability):
        if amending:
            raise TransitionForbidden("Your role may not amend an approved shipment (back to draft).")
        raise TransitionForbidden(f"Your role may not move a shipment to {new_status.label.lower()}.")
    if new_status in (ShipmentStatus.ON_HOLD, ShipmentStatus.CANCELLED) and not reason:
        raise TransitionRefused(f"A reason is required to put a shipment {new_status.label.lower()}.")
    if amending and not reason:
        raise TransitionRefused(
            "Say why the shipment is amended: the reason is recorded and given on every document voided."
        )
    if new_status == ShipmentStatus.ON_HOLD and hold_kind not in workflow.HoldKind.__members__.values():
        raise TransitionRefused("Say whether this is a compliance or a customs hold.")
    if target == RELEASE and check_capability:
        problems = hooks.release_problems(shipment, actor)
        if problems:
            raise TransitionRefused(
                f"{shipment.reference} cannot be released here: {' '.join(problems)}", reasons=problems
            )
    if target != RELEASE:
        problems = guard_problems(shipment, new_status)
        if problems:
            raise TransitionRefused(
                f"{shipment.reference} cannot move to {new_status.label.lower()} yet.", reasons=problems
            )
    before = shipment.status
    if new_status == ShipmentStatus.ON_HOLD:
        shipment.held_from, shipment.hold_kind, shipment.hold_reason = before, hold_kind, reason
    elif current == ShipmentStatus.ON_HOLD:
        shipment.held_from, shipment.hold_kind, shipment.hold_reason = "", "", ""
    shipment.status = new_status
    shipment.status_changed_at = timezone.now()
    if amending:
        shipment.amendments += 1  # under the row lock taken above
    shipment.save(
        update_fields=[
            "status", "held_from", "hold_kind", "hold_reason", "status_changed_at", "amendments",
            "updated_at",
        ]
    )  # fmt: skip
    hooks.run_on_enter(
        hooks.Entered(
            shipment=shipment,
            before=before,
            after=new_status,
            actor=actor,
            released=target == RELEASE,
            reason=reason,
        )
    )
    label = "release" if target == RELEASE else "amendment" if amending else ""
    record_transition(
        shipment,
        field="status",
        before=before,
        after=new_status,
        actor=actor,
        reason=" — ".join(p for p in (label, hold_kind, reason) if p),
    )
    return shipment


def _amend_problems(shipment: Shipment) -> list[str]:
    return workflow.amend_problems(
        workflow.Status(shipment.status),
        held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
    )


@transaction.atomic
def shipment_amend(*, shipment: Shipment, actor: User | None, reason: str) -> Shipment:
    """Send an approved shipment that is not booked yet back to draft to correct its lines or terms.

    A reason is required. In the same transaction, through the hooks of the apps above: every issued
    document is voided with the reason (its version and bytes kept, a VOID copy added) and drafts
    are superseded; the compliance answer is marked stale. The amendment is counted on the shipment
    and the count is part of what the compliance answer rests on, so resubmitting runs the check
    again on the amended data instead of re-applying the old approval."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if problems := _amend_problems(shipment):
        raise TransitionRefused(
            f"{shipment.reference} cannot be amended (sent back to draft).", reasons=problems
        )
    return shipment_transition(shipment=shipment, target=ShipmentStatus.DRAFT, actor=actor, reason=reason)


# --- milestones -----------------------------------------------------------------------------


@transaction.atomic
def event_record(
    *,
    shipment: Shipment,
    actor: User,
    code: str,
    occurred_at: dt.datetime,
    location: str = "",
    remarks: str = "",
    leg: Leg | None = None,
    eta: dt.date | None = None,
) -> TrackingEvent:
    """Add a milestone. Events may arrive out of order: the status goes as far as all of the
    shipment's events prove, by when they happened (`workflow.settle`); skipped steps are recorded
    as inferred, and an event that moves nothing says why (`status_note`). A milestone that would
    move the shipment past a guard (compliance: the goods leave only on a current, passing answer),
    or that reports goods held for compliance moving, is refused whole: `TransitionRefused`."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if shipment.status == ShipmentStatus.CANCELLED:
        raise ValidationError({"shipment": f"{shipment.reference} is cancelled; it takes no more events."})
    if code not in EventCode.values:
        raise ValidationError(
            {"code": f"Unknown event code {code!r}; use one of {', '.join(EventCode.values)}."}
        )
    if leg is not None and leg.shipment_id != shipment.pk:
        raise ValidationError({"leg": f"Leg {leg.pk} is not a leg of {shipment.reference}."})
    if occurred_at > timezone.now() + dt.timedelta(hours=1):
        raise ValidationError({"occurred_at": "An event cannot happen in the future."})
    event = TrackingEvent(
        shipment=shipment,
        leg=leg,
        code=code,
        occurred_at=occurred_at,
        location=location,
        remarks=remarks,
        eta=eta,
        posted_by=actor,
        organisation=actor.organisation,
        status_before=shipment.status,
    )
    event.full_clean(exclude=["posted_by"])
    event.save()
    _apply_event_to_leg(event)
    shipment = _settle(shipment, event, actor, remarks, location)
    selectors.shipment_refresh_eta(shipment)
    return event


def _milestone(shipment: Shipment, event: TrackingEvent, later_legs: set[int]) -> workflow.Milestone:
    leg = event.leg
    return workflow.Milestone(
        code=event.code,
        occurred_at=event.occurred_at,
        # An arrival counts as at destination on the final leg, or a leg to the destination.
        is_final_leg=leg is None
        or leg.destination_id == shipment.destination_id
        or (leg.role != LegRole.INBOUND and leg.pk not in later_legs),
        inbound=leg is not None and leg.role == LegRole.INBOUND,
    )


def _settle(shipment: Shipment, event: TrackingEvent, actor: User, remarks: str, location: str) -> Shipment:
    """Move the status as far as the shipment's events (ordered by when they happened, not by when
    they arrived) prove; record the steps taken on the way as inferred, or why nothing moved."""
    legs = list(shipment.legs.all())
    # A leg followed on the route by an onward one is not final; inbound legs (to the hub) follow
    # nothing, whatever their sequence (issue 11).
    later_legs = {
        leg.pk
        for leg in legs
        if any(other.sequence > leg.sequence and other.role != LegRole.INBOUND for other in legs)
    }
    events = list(shipment.events.select_related("leg"))
    outcome = workflow.settle(
        workflow.Status(shipment.status),
        [_milestone(shipment, e, later_legs) for e in events],
        _milestone(shipment, event, later_legs),
        held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
        hold_kind=shipment.hold_kind or None,
        held_since=shipment.status_changed_at if shipment.status == ShipmentStatus.ON_HOLD else None,
    )
    label = event.get_code_display()
    if outcome.refused:
        raise TransitionRefused(
            f"{shipment.reference} is held for compliance: the “{label}” milestone is refused.",
            reasons=[outcome.reason] + ([shipment.hold_reason] if shipment.hold_reason else []),
        )
    said = remarks or f"{label} at {location}".strip()
    before, note = shipment.status, outcome.reason
    try:
        if outcome.release:
            shipment = shipment_transition(
                shipment=shipment,
                target=RELEASE,
                actor=actor,
                reason=f"{label}: {remarks}",
                check_capability=False,
            )
        for step in outcome.steps:
            reason = (
                f"inferred from {label} of {event.occurred_at:%Y-%m-%d %H:%M} (event {event.pk})"
                if step in outcome.inferred
                else said
            )
            shipment = shipment_transition(
                shipment=shipment, target=step, actor=actor, reason=reason, check_capability=False
            )
        if outcome.hold:
            shipment = shipment_transition(
                shipment=shipment, target=ShipmentStatus.ON_HOLD, actor=actor, reason=said,
                hold_kind=workflow.HoldKind.CUSTOMS, check_capability=False,
            )  # fmt: skip
    except TransitionRefused as exc:
        # A guard refused a step (compliance: the answer is not current, or does not pass): the
        # milestone is refused whole, with the guard's reasons, and nothing of it is recorded.
        raise TransitionRefused(
            f"{shipment.reference} cannot take the “{label}” milestone: it may not move on yet.",
            reasons=exc.reasons,
        ) from exc
    if shipment.status != before:
        if not note:
            inferred = ", ".join(workflow.LABELS[s].lower() for s in outcome.inferred)
            moved = f"Moved from {ShipmentStatus(before).label.lower()} to {shipment.get_status_display()}"
            note = moved.lower() + (f"; {inferred} inferred from this event." if inferred else ".")
        event.status_after = shipment.status
    event.status_note = note[:300]
    event.save(update_fields=["status_after", "status_note"])
    return shipment


def _apply_event_to_leg(event: TrackingEvent) -> None:
    if event.leg is None:
        return
    if event.code == EventCode.DEPARTED and event.leg.actual_departure is None:
        Leg.objects.filter(pk=event.leg.pk).update(actual_departure=event.occurred_at)
    if event.code == EventCode.ARRIVED and event.leg.actual_arrival is None:
        Leg.objects.filter(pk=event.leg.pk).update(actual_arrival=event.occurred_at)


# --- sites ----------------------------------------------------------------------------------


@transaction.atomic
def site_create(*, actor: User, fields: dict[str, Any]) -> Site:
    return _save(Site(owner=_owner_for(actor)), **fields)


@transaction.atomic
def site_update(*, site: Site, fields: dict[str, Any]) -> Site:
    return _save(Site.objects.select_for_update().get(pk=site.pk), **fields)


@transaction.atomic
def freight_rate_save(*, rate: FreightRate, fields: dict[str, Any]) -> FreightRate:
    """Create or change a lane's rate; the model checks prices fit the mode and dates are in order."""
    return _save(rate, **fields)


@transaction.atomic
def exchange_rate_save(*, rate: ExchangeRate, fields: dict[str, Any]) -> ExchangeRate:
    """Create or change a dated exchange rate; the model checks two currencies and a positive rate."""
    return _save(rate, **fields)
