"""A document's lines: each line's packed net and gross weight (every package's weights shared out
among the lines it holds, to the cent) and its countries of origin (read from the serials packed,
with the line's share per country when its units come from several)."""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_DOWN, Decimal

from apps.shipments.models import LineSerial, Shipment, ShipmentLine

from ..context import DocLine, DocOrigin

CENT = Decimal("0.01")


def apportion(total: Decimal, weights: list[Decimal], *, fallback: list[int] | None = None) -> list[Decimal]:
    """`total` (in cents) shared out in proportion to `weights`, or to `fallback` when the weights are
    all zero, so that the shares add up to `total` exactly: each share is rounded down to the cent,
    and the cents left over go one each to the shares that rounding cut most (the largest first on
    a tie). No share is negative or more than a cent from its exact value."""
    if not any(weights):
        weights = (
            [Decimal(n) for n in fallback] if fallback and any(fallback) else [Decimal(1)] * len(weights)
        )
    whole = sum(weights, Decimal("0"))
    exact = [total * weight / whole for weight in weights]
    shares = [value.quantize(CENT, rounding=ROUND_DOWN) for value in exact]
    left = int(((total - sum(shares, Decimal("0"))) / CENT).to_integral_value())
    by_cut = sorted(range(len(shares)), key=lambda i: (exact[i] - shares[i], weights[i]), reverse=True)
    for i in by_cut[:left]:
        shares[i] += CENT
    return shares


def _line_weights(shipment: Shipment) -> tuple[dict[int, Decimal], dict[int, Decimal]]:
    """line id → (net kg, gross kg) packed: each package's weights shared among the lines it holds,
    by the catalogue weight of their units (by units when the parts have no weight). The lines'
    weights therefore add up to the packages'."""
    net: dict[int, Decimal] = defaultdict(Decimal)
    gross: dict[int, Decimal] = defaultdict(Decimal)
    for package in shipment.packages.all():
        items = list(package.items.all())
        weights = [item.line.part.unit_weight_kg * item.quantity for item in items]
        units = [item.quantity for item in items]
        net_shares = apportion(package.net_kg, weights, fallback=units)
        gross_shares = apportion(package.gross_kg, weights, fallback=units)
        for item, net_kg, gross_kg in zip(items, net_shares, gross_shares, strict=True):
            net[item.line_id] += net_kg
            gross[item.line_id] += gross_kg
    return net, gross


def serial_origin(serial: LineSerial, line: ShipmentLine) -> str:
    """A packed unit's country of origin: the unit's own (recorded from the inbound line it arrived
    on at the warehouse), else the origin its line declares."""
    return serial.unit.country_of_origin or line.country_of_origin


def _packed_origins(shipment: Shipment) -> dict[int, dict[str, list[str]]]:
    """line id → country of origin → the serials of that origin packed, in package order. Read from
    the packages already loaded: the packed documents are only made once every serial is packed."""
    lines = {line.pk: line for line in shipment.lines.all()}
    found: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for package in shipment.packages.all():
        for serial in package.serials.all():
            found[serial.line_id][serial_origin(serial, lines[serial.line_id])].append(serial.serial)
    return found


def _line_origins(line: ShipmentLine, packed: dict[str, list[str]]) -> tuple[str, tuple[DocOrigin, ...]]:
    """The line's country of origin as the documents state it, and its shares per country when its
    units come from several. Units without a packed serial (a lot part's pieces) are of the origin
    the line declares; the shares' quantities and values add up to the line's."""
    counts = {country: len(serials) for country, serials in packed.items()}
    rest = line.quantity - sum(counts.values())
    if rest > 0:
        counts[line.country_of_origin] = counts.get(line.country_of_origin, 0) + rest
    countries = sorted(country for country, count in counts.items() if count > 0)
    if len(countries) <= 1:
        return (countries[0] if countries else line.country_of_origin), ()
    origins = tuple(
        DocOrigin(
            label=f"{line.line_number}.{i}",
            country=country,
            quantity=counts[country],
            value=line.unit_value * counts[country],
            serials=tuple(packed.get(country, ())),
        )
        for i, country in enumerate(countries, start=1)
    )
    return ", ".join(countries), origins


def doc_lines(shipment: Shipment, compliance: dict[int, tuple[str, str, str]]) -> list[DocLine]:
    lines = []
    net, gross = _line_weights(shipment)
    packed = _packed_origins(shipment)
    for line in shipment.lines.all():
        eccn, _outcome, licence = compliance.get(line.pk, ("", "", ""))
        country_of_origin, origins = _line_origins(line, packed.get(line.pk, {}))
        lines.append(
            DocLine(
                number=line.line_number,
                part_number=line.part.part_number,
                description=line.description,
                quantity=line.quantity,
                unit="pcs",
                unit_value=line.unit_value,
                line_value=line.line_value,
                hs_code=line.hs_code,
                country_of_origin=country_of_origin,
                eccn=eccn or "",
                licence=licence,
                net_kg=net.get(line.pk),
                gross_kg=gross.get(line.pk),
                origins=origins,
            )
        )
    return lines
