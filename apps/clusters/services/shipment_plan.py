"""A cluster's shipment plan: the pure planner (`engines/shipment_plan.py`) fed from a
bill of materials, the site and the rate table, and the proposals made into draft shipments.

- `plan_for(bom)`: the proposals for the BOM's lines (quantity above 0), priced on the freight
  rates valid on each line's ready date (the plan date, today, plus the line's lead time),
  through the operator's bonded warehouse outside the site's country (the demo's Singapore hub)
  with its handling rate.
- `shipments_create_from_plan(bom=…, actor=…, proposals=…)`: draft shipments with their lines
  (and, for a consolidation, inbound legs to the hub and the main carriage), made through the
  shipments app's own services (`shipment_create`, `line_add`, `leg_add`) in one transaction:
  all or nothing. The shipper is the supplier (`shipper_for`): each draft names it, and a
  consolidation's lines name their own. Each is linked to the design (`ClusterShipment`) and
  marked in its instructions with the design, the BOM version and the proposal, so asking again
  is idempotent: a proposal already made from the same version is not made twice but reported
  with its drafts (`PlanDrafts.already`); only `again=True` makes another set. Cancelled drafts
  do not count.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind
from apps.shipments import selectors as shipment_selectors
from apps.shipments import services as shipment_services
from apps.shipments.models import (
    FreightRate,
    HubHandlingRate,
    LegRole,
    Shipment,
    ShipmentStatus,
    Site,
    SiteKind,
)

from ..engines import shipment_plan as engine
from ..models import BillOfMaterials, ClusterDesign, ClusterShipment

ORIGIN_KINDS = (SiteKind.FACTORY, SiteKind.SUPPLIER_WAREHOUSE)


def consolidation_hub(design: ClusterDesign) -> Site | None:
    """The operator's bonded warehouse outside the site's country (first by name), or None."""
    return (
        Site.objects.filter(kind=SiteKind.WAREHOUSE, is_bonded=True, owner__kind=OrganisationKind.OPERATOR)
        .exclude(country=design.site.country)
        .order_by("name", "pk")
        .first()
    )


def _hub(site: Site | None, on: dt.date) -> engine.Hub | None:
    if site is None:
        return None
    handling = (
        HubHandlingRate.objects.filter(site=site, valid_from__lte=on, valid_to__gte=on)
        .order_by("-valid_from", "-pk")
        .first()
    )
    if handling is None:
        return engine.Hub(name=site.name, country=site.country)
    return engine.Hub(
        name=site.name,
        country=site.country,
        handling_per_kg=handling.price_per_kg,
        handling_minimum=handling.minimum_charge,
        handling_currency=handling.currency,
    )


def _bom_lines(bom: BillOfMaterials):
    return list(bom.lines.filter(quantity__gt=0).select_related("part__manufacturer").order_by("id"))


def plan_inputs(bom: BillOfMaterials, *, today: dt.date | None = None) -> engine.PlanInputs:
    """The planner's inputs: the BOM's lines with their parts' figures, the site's country, the
    required-on-site date and the rates valid today to the site's and the hub's countries."""
    design = bom.design
    on = today or timezone.localdate()
    lines = []
    for line in _bom_lines(bom):
        part = line.part
        goods = shipment_selectors.part_dangerous_goods(part)
        lead = line.lead_time_days
        lines.append(
            engine.PlanLine(
                key=str(line.pk),
                description=f"{part.manufacturer.name} {part.part_number} ({line.get_role_display()})",
                category=part.category,
                quantity=line.quantity,
                unit_weight_kg=part.unit_weight_kg,
                length_cm=part.length_cm,
                width_cm=part.width_cm,
                height_cm=part.height_cm,
                unit_value=part.unit_value,
                currency=part.currency,
                country_of_origin=part.country_of_origin,
                supplier=part.manufacturer.name,
                dangerous_goods=(goods,) if goods else (),
                ready_date=on + dt.timedelta(days=lead) if lead else None,
            )
        )
    hub_site = consolidation_hub(design)
    destinations = {design.site.country} | ({hub_site.country} if hub_site else set())
    rates = FreightRate.objects.filter(
        destination_country__in=destinations, valid_from__lte=on, valid_to__gte=on
    ).order_by("pk")
    return engine.PlanInputs(
        lines=tuple(lines),
        destination_country=design.site.country,
        ready_date=on,
        required_by=design.required_on_site,
        rates=tuple(shipment_selectors.engine_rate(r) for r in rates),
        hub=_hub(hub_site, on),
        limits=shipment_selectors.freight_limits(),
    )


def _refused(error: engine.PlanError, bom: BillOfMaterials) -> ValidationError:
    if error.field.isdigit():  # a BOM line's key
        return ValidationError({"bom": f"Version {bom.version}: {error.message}"})
    return ValidationError({error.field: error.message})


def plan_for(bom: BillOfMaterials, *, today: dt.date | None = None) -> engine.ShipmentPlan:
    """The proposed shipments for a bill of materials; a ValidationError names what it cannot use."""
    try:
        return engine.plan(plan_inputs(bom, today=today))
    except engine.PlanError as error:
        raise _refused(error, bom) from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def plan_as_dict(
    plan: engine.ShipmentPlan, bom: BillOfMaterials, *, rate_card: bool = False
) -> dict[str, Any]:
    """The plan as JSON-safe data (money as strings), with the BOM version it was made from.
    `breakdown` (the freight engine's working, quoting the operator's rates) only with `rate_card`:
    for operator staff (apps/shipments/disclosure.py); the design's owner and customer read the
    totals and the reasons."""
    data = asdict(plan)
    for proposal in data["proposals"]:
        proposal["priced"] = proposal["cost"] is not None
        if not rate_card:
            del proposal["breakdown"]
        for line in proposal["lines"]:
            line["bom_line"] = int(line.pop("key"))
        for leg in proposal["legs"]:
            leg["bom_lines"] = [int(key) for key in leg.pop("line_keys")]
    return {"design": bom.design_id, "bom_version": bom.version, **_jsonable(data)}


def plan_marker(bom: BillOfMaterials) -> str:
    """What starts the instructions of a draft made from this version's plan."""
    return f"[Cluster plan {bom.design_id} BOM v{bom.version}]"


def _drafts(bom: BillOfMaterials):
    """Every live shipment made from this version's plan (not cancelled), whoever may see it."""
    return (
        Shipment.objects.filter(
            cluster_links__design_id=bom.design_id, instructions__startswith=plan_marker(bom)
        )
        .exclude(status=ShipmentStatus.CANCELLED)
        .order_by("reference")
    )


def drafts_made(bom: BillOfMaterials, *, reader):
    """The live shipments made from this version's plan that `reader` may see: a design's reader
    is not thereby a party to every shipment made for it."""
    return _drafts(bom).filter(pk__in=Shipment.objects.visible_to(reader).values("pk"))


def drafts_by_proposal(bom: BillOfMaterials, *, reader=None) -> dict[str, list[str]]:
    """The references of the live drafts made from this version's plan, by the proposal they were
    made from; with `reader`, a draft it may not see is "a draft you are no party to"."""
    prefix = f"{plan_marker(bom)} Proposal "
    visible = (
        set(drafts_made(bom, reader=reader).values_list("pk", flat=True)) if reader is not None else None
    )
    made: dict[str, list[str]] = {}
    for shipment in _drafts(bom).only("pk", "reference", "instructions"):
        key = shipment.instructions[len(prefix) :].split(":", 1)[0]
        shown = visible is None or shipment.pk in visible
        made.setdefault(key, []).append(shipment.reference if shown else "a draft you are no party to")
    return made


def _origin_site(sites: list[Site], country: str, supplier: str) -> Site | None:
    """A factory or supplier warehouse in `country`, the supplier's own first (by its name or its
    owner's), else the first by name."""
    here = [s for s in sites if s.country == country]
    wanted = supplier.lower()
    own = [s for s in here if wanted and (wanted in s.name.lower() or wanted in s.owner.legal_name.lower())]
    return (own or here or [None])[0]


def origin_sites(proposals, actor) -> tuple[dict[tuple[str, str], Site], dict[str, list[str]]]:
    """The site each proposal's goods leave from, by (country, supplier), among the factories and
    supplier warehouses `actor` sees; and what keeps a proposal from becoming a shipment (no site
    in a country, parts in two currencies), each naming the proposal."""
    sites = list(
        Site.objects.visible_to(actor)
        .filter(kind__in=ORIGIN_KINDS)
        .select_related("owner")
        .order_by("name", "pk")
    )
    problems: dict[str, list[str]] = {}
    origins: dict[tuple[str, str], Site] = {}
    for proposal in proposals:
        currencies = sorted({line.currency for line in proposal.lines})
        if len(currencies) > 1:
            problems.setdefault(proposal.key, []).append(
                f"{proposal.key}: its parts are priced in {' and '.join(currencies)}; a shipment has one "
                "currency: give the parts one currency in the catalogue."
            )
        for leg in proposal.legs:
            if leg.role == "main":
                continue
            site = _origin_site(sites, leg.origin_country, leg.supplier)
            if site is None:
                problems.setdefault(proposal.key, []).append(
                    f"{proposal.key}: no factory or supplier warehouse in {leg.origin_country} to ship "
                    f"{leg.supplier}'s goods from; add the supplier's site first."
                )
            else:
                origins[(leg.origin_country, leg.supplier)] = site
    return origins, problems


def _word(text: str) -> str:
    return (text.split() or [""])[0].strip("(),.").lower()


def shipper_for(site: Site, supplier: str, suppliers: list[Organisation]) -> Organisation | None:
    """The organisation that ships a supplier's goods from `site`, among the supplier
    organisations the actor may name: the site's owner when the site is a supplier's own; else
    the supplier whose name begins with the maker's (NVIDIA → "NVIDIA Corporation"); else the one
    whose name begins with the site's first word (a contract manufacturer's plant kept by the
    operator: "Jabil Guadalajara (NVIDIA networking)" → "Jabil Circuit de México"). None when
    none fits: the draft then names no shipper and says so."""
    by_pk = {org.pk: org for org in suppliers}
    if site.owner_id in by_pk:
        return by_pk[site.owner_id]
    maker = supplier.lower()
    for org in suppliers:
        if maker and org.legal_name.lower().startswith(maker):
            return org
    first = _word(site.name)
    if len(first) >= 3:
        for org in suppliers:
            if _word(org.legal_name) == first:
                return org
    return None


@dataclass
class PlanDrafts:
    """What asking for drafts did: the shipments `made` now, and the proposals made before from the
    same version (`already`: proposal → the references the actor may see), which were not made
    again."""

    made: list[Shipment] = field(default_factory=list)
    already: dict[str, list[str]] = field(default_factory=dict)


@transaction.atomic
def shipments_create_from_plan(
    *,
    bom: BillOfMaterials,
    actor,
    proposals: list[str] | None = None,
    again: bool = False,
    today: dt.date | None = None,
) -> PlanDrafts:
    """Draft shipments for the chosen proposals (all when none are named), with their lines and,
    for a consolidation, its legs; the supplier named as shipper; linked to the design. All or
    nothing: any refusal (an origin with no site to ship from, a part priced in another currency,
    a party the actor may not name …) leaves nothing made. Idempotent: a proposal made from this
    version already is reported, not made again (unless `again`). The BOM's row is locked, so two
    requests queue and the second finds the first's drafts."""
    # Only the BOM's row is locked (`of`): not the design, site and customer read with it.
    bom = (
        BillOfMaterials.objects.select_for_update(of=("self",))
        .select_related("design__site", "design__customer")
        .get(pk=bom.pk)
    )
    design = bom.design
    if design.required_on_site is None:
        raise ValidationError(
            {
                "required_on_site": "Set the date the cluster is required on site: "
                "a shipment needs a required date."
            }
        )
    plan = plan_for(bom, today=today)
    by_key = {p.key: p for p in plan.proposals}
    chosen_keys = list(dict.fromkeys(proposals)) if proposals else list(by_key)
    unknown = [key for key in chosen_keys if key not in by_key]
    if unknown:
        raise ValidationError(
            {
                "proposals": f"No proposal {', '.join(unknown)} in the plan; "
                f"it has {', '.join(by_key) or 'none'}."
            }
        )
    result = PlanDrafts()
    if not again:
        # Every draft counts, so nothing is ordered twice; the actor reads the references it may see.
        made_before = drafts_by_proposal(bom, reader=actor)
        result.already = {key: made_before[key] for key in chosen_keys if key in made_before}
        chosen_keys = [key for key in chosen_keys if key not in made_before]
    chosen = [by_key[key] for key in chosen_keys]
    if not chosen:
        return result
    hub_site = consolidation_hub(design)
    origins, problems = origin_sites(chosen, actor)
    if problems:
        raise ValidationError({"proposals": [message for found in problems.values() for message in found]})
    suppliers = list(
        Organisation.objects.nameable_by(actor)
        .filter(kind=OrganisationKind.SUPPLIER)
        .order_by("legal_name", "pk")
    )
    shippers = {key: shipper_for(site, key[1], suppliers) for key, site in origins.items()}
    bom_lines = {str(line.pk): line for line in _bom_lines(bom)}
    parties = {"consignee": design.customer, "ultimate_consignee": design.customer}
    marker = plan_marker(bom)
    for proposal in chosen:
        feeders = [leg for leg in proposal.legs if leg.role != "main"]
        first_key = (feeders[0].origin_country, feeders[0].supplier)
        first = origins[first_key]
        unnamed = sorted(
            {leg.supplier for leg in feeders if shippers[(leg.origin_country, leg.supplier)] is None}
        )
        note = (
            f" No shipper named for {', '.join(unnamed)}: no supplier organisation found; "
            "name it on the draft."
            if unnamed
            else ""
        )
        shipment = shipment_services.shipment_create(
            actor=actor,
            fields={
                "origin": first,
                "destination": design.site,
                "incoterm": "DAP",
                "incoterm_place": f"{design.site.name}, {design.site.city}"[:120],
                "mode": proposal.mode,
                "ready_date": proposal.ready_date or plan.ready_date,
                "required_by": design.required_on_site,
                "currency": proposal.lines[0].currency,
                "end_use": f"AI training cluster: {design.name}"[:300],
                "instructions": f"{marker} Proposal {proposal.key}: {proposal.reasons[0]}.{note}"[:4000],
            },
            parties=parties | {"shipper": shippers[first_key]},
        )
        # A consolidation's lines name their own supplier where it is not the shipment's shipper.
        line_shipper = {
            key: shippers[(leg.origin_country, leg.supplier)]
            for leg in feeders
            for key in leg.line_keys
            if shippers[(leg.origin_country, leg.supplier)] not in (None, shippers[first_key])
        }
        lines_by_key = {}
        for planned in proposal.lines:
            bom_line = bom_lines[planned.key]
            fields = {"shipper": line_shipper[planned.key]} if planned.key in line_shipper else None
            lines_by_key[planned.key] = shipment_services.line_add(
                shipment=shipment, part=bom_line.part, quantity=bom_line.quantity, fields=fields, actor=actor
            )
        if proposal.kind == engine.CONSOLIDATED:
            for leg in proposal.legs:
                inbound = leg.role != "main"
                fields = {
                    "role": LegRole.INBOUND if inbound else LegRole.MAIN,
                    "origin": origins[(leg.origin_country, leg.supplier)] if inbound else hub_site,
                    "destination": hub_site if inbound else design.site,
                    "mode": leg.mode,
                    "planned_departure": leg.departure,
                    "planned_arrival": leg.arrival,
                }
                carried = [lines_by_key[key] for key in leg.line_keys] if inbound else []
                shipment_services.leg_add(shipment=shipment, fields=fields, lines=carried)
        link = ClusterShipment(design=design, shipment=shipment, created_by=actor if actor.pk else None)
        link.full_clean()
        link.save()
        result.made.append(shipment)
    return result
