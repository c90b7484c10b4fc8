"""Commercial invoice and packing list for a 1,000-line, 4,000-serial shipment, in one piece and in
parallel pieces, beside a minimal WeasyPrint document with the same number of pages (aim: no more
than 1.5× the minimal one)."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

from bench.harness import Report, measure, round_robin

LINES = 1000
UNITS_PER_LINE = 4  # 4,000 serial numbers
LINES_PER_PACKAGE = 4
REPEAT = 3


def _world():
    from apps.accounts.models import Contact, Organisation, Registration, User
    from apps.accounts.roles import Role
    from apps.catalog.models import Manufacturer, Part
    from apps.shipments.models import (
        LineSerial,
        Package,
        PackageItem,
        Shipment,
        ShipmentLine,
        ShipmentParty,
        Site,
    )

    operator = Organisation.objects.create(
        kind="operator",
        legal_name="Rackpass Bench Operator",
        address_line1="1 Bench St",
        city="Palo Alto",
        country="US",
    )
    shipper = Organisation.objects.create(
        kind="supplier", legal_name="Bench Servers Co", address_line1="No. 1", city="Taoyuan", country="TW"
    )
    consignee = Organisation.objects.create(
        kind="customer",
        legal_name="Bench Compute Pvt Ltd",
        address_line1="Plot 7",
        city="Chennai",
        country="IN",
    )
    Registration.objects.create(organisation=consignee, scheme="iec", number="AAKCC5521M", country="IN")
    Registration.objects.create(
        organisation=consignee, scheme="gstin", number="33AAKCC5521M1Z2", country="IN"
    )
    # The shipper's authorised signatory signs its invoice and packing list.
    Contact.objects.create(
        organisation=shipper,
        name="Bench Signatory",
        job_title="Export manager",
        email="signatory@bench.example",
        is_signatory=True,
    )
    user = User.objects.create(username="bench", organisation=operator, role=Role.COORDINATOR)
    nvidia = Manufacturer.objects.create(name="NVIDIA", country="US")
    parts = Part.objects.bulk_create(
        [
            Part(
                owner=operator,
                manufacturer=nvidia,
                part_number=f"BENCH-{i:04d}",
                name=f"Bench optic {i}",
                category="optical_transceiver",
                unit_weight_kg=Decimal("0.3"),
                length_cm=Decimal("12"),
                width_cm=Decimal("4"),
                height_cm=Decimal("2"),
                unit_value=Decimal("1200"),
                currency="USD",
                country_of_origin="TH",
                hs_code="851762",
                is_serialised=True,
            )
            for i in range(LINES)
        ]
    )
    origin = Site.objects.create(
        owner=operator, name="Bench factory", kind="factory", city="Taoyuan", country="TW"
    )
    destination = Site.objects.create(
        owner=operator, name="Bench DC", kind="data_centre", city="Chennai", country="IN"
    )
    today = dt.date(2026, 12, 2)
    shipment = Shipment.objects.create(
        reference="SHP-2026-900001",
        owner=operator,
        created_by=user,
        origin=origin,
        destination=destination,
        incoterm="DAP",
        incoterm_place="Chennai",
        mode="air",
        ready_date=today,
        required_by=today + dt.timedelta(days=20),
    )
    ShipmentParty.objects.bulk_create(
        [
            ShipmentParty(shipment=shipment, role="shipper", organisation=shipper),
            ShipmentParty(shipment=shipment, role="consignee", organisation=consignee),
        ]
    )
    lines = ShipmentLine.objects.bulk_create(
        [
            ShipmentLine(
                shipment=shipment,
                line_number=i + 1,
                part=part,
                description=f"NVIDIA {part.name}, P/N {part.part_number}",
                quantity=UNITS_PER_LINE,
                unit_value=part.unit_value,
                country_of_origin="TH",
                hs_code="851762",
                export_classification={},
            )
            for i, part in enumerate(parts)
        ]
    )
    packages = Package.objects.bulk_create(
        [
            Package(
                shipment=shipment,
                number=n + 1,
                package_type="carton",
                length_cm=Decimal("60"),
                width_cm=Decimal("40"),
                height_cm=Decimal("30"),
                gross_kg=Decimal("8"),
                net_kg=Decimal("5"),
                marks=f"BENCH/{n + 1}",
            )
            for n in range(LINES // LINES_PER_PACKAGE)
        ]
    )
    PackageItem.objects.bulk_create(
        [
            PackageItem(package=packages[i // LINES_PER_PACKAGE], line=line, quantity=UNITS_PER_LINE)
            for i, line in enumerate(lines)
        ]
    )
    LineSerial.objects.bulk_create(
        [
            LineSerial(
                line=line,
                serial=f"MT{line.line_number:04d}X{u:02d}",
                package=packages[i // LINES_PER_PACKAGE],
            )
            for i, line in enumerate(lines)
            for u in range(UNITS_PER_LINE)
        ],
        batch_size=2000,
    )
    # Classifications, so the invoice carries ECCNs like a real one.
    from apps.compliance.models import PartClassification

    PartClassification.objects.bulk_create(
        [
            PartClassification(
                part=part, eccn="5A991", source="engine", reasoning=["bench"], rule_version="bench"
            )
            for part in parts
        ]
    )
    return shipment


def _minimal_pdf(pages: int) -> int:
    """A bare WeasyPrint document of `pages` pages of plain text: the floor for this many pages."""
    import weasyprint

    body = "".join(
        f'<section style="page-break-after: always"><p>Page {n}</p><p>{"Lorem ipsum " * 40}</p></section>'
        for n in range(pages)
    )
    document = weasyprint.HTML(string=f"<html><body>{body}</body></html>").render()
    document.write_pdf()
    return len(document.pages)


def _bare_table(rows: int, columns: int) -> int:
    """The same number of table cells with no styling: what WeasyPrint's table layout costs by itself."""
    import weasyprint

    body = "".join(
        "<tr>" + "".join(f"<td>r{r} c{c} text</td>" for c in range(columns)) + "</tr>" for r in range(rows)
    )
    document = weasyprint.HTML(string=f"<table><tbody>{body}</tbody></table>").render()
    document.write_pdf()
    return len(document.pages)


# Cells per document in the benchmark's shipment: the invoice's line table (9 columns), the packing
# list's package table (6 columns, 250 packages) plus its annex (2 columns, one row per package).
CELLS = {"commercial_invoice": (LINES, 9), "packing_list": (LINES // LINES_PER_PACKAGE * 2, 4)}


def run(report: Report) -> None:
    from django.conf import settings

    from apps.documents import builder
    from apps.documents.renderer import render_html, render_one_piece, render_parallel

    shipment = _world()
    processes = max(2, settings.DOCUMENT_RENDER_PROCESSES)
    for doc_type in ("commercial_invoice", "packing_list"):
        problems = builder.document_problems(shipment, doc_type)
        report.check(
            # No compliance check runs here: the bench reads classifications directly.
            not [p for p in problems if p.field != "compliance_check"],
            f"{doc_type}: unexpected missing data {[p.message for p in problems][:3]}",
        )
        one_piece_pages: list[int] = []
        one_piece_cpu: list[float] = []
        parallel_pages: list[tuple[int, list[int], list[float]]] = []

        def context(doc_type=doc_type):
            return builder.build_context(shipment, doc_type, number="BENCH-1", version=1, watermark="")

        def one_piece(seen=one_piece_pages, cpu=one_piece_cpu):
            html = render_html(context())
            started = time.process_time()
            _pdf, pages = render_one_piece(html)
            cpu.append(time.process_time() - started)
            seen.append(pages)

        def parallel(seen=parallel_pages):
            # What render_pdf does for a document this large (without its fallback, so that a
            # failure shows): the same data, HTML, then the pieces in `processes` processes.
            rendered = render_parallel(render_html(context()), processes)
            if rendered:
                seen.append((rendered.pages, rendered.piece_pages, rendered.piece_cpu_seconds))
            else:
                seen.append((0, [], []))

        timings = round_robin({"one piece": one_piece, "parallel": parallel}, repeat=REPEAT)
        rendered, split = timings["one piece"], timings["parallel"]
        build = measure(context, repeat=REPEAT)
        pages = one_piece_pages[0]
        pieces_pages, piece_pages, piece_cpu = parallel_pages[0]
        report.check(bool(piece_pages), f"{doc_type}: not rendered in pieces")
        report.check(
            pages <= pieces_pages <= pages + len(piece_pages) - 1,
            f"{doc_type}: {pieces_pages} pages in pieces {piece_pages}, {pages} in one piece",
        )
        minimal_pages: list[int] = []
        minimal = measure(lambda p=pages, seen=minimal_pages: seen.append(_minimal_pdf(p)), repeat=REPEAT)
        report.check(minimal_pages[0] == pages, f"minimal document has {minimal_pages[0]} pages, not {pages}")
        rows, columns = CELLS[doc_type]
        bare = measure(lambda r=rows, c=columns: _bare_table(r, c), repeat=REPEAT)
        report.row(
            document=doc_type,
            lines=LINES,
            serials=LINES * UNITS_PER_LINE,
            pages=pages,
            **{
                "one piece s (median)": rendered.median_ms / 1000,
                "parallel s (median)": split.median_ms / 1000,
                "parallel pages": f"{pieces_pages} ({' + '.join(map(str, piece_pages))})",
                "speed-up": rendered.median_ms / split.median_ms,
                "CPU s one piece / pieces": f"{one_piece_cpu[0]:.1f} / "
                + " + ".join(f"{c:.1f}" for c in piece_cpu),
                "of which data s": build.median_ms / 1000,
                "minimal same pages s": minimal.median_ms / 1000,
                "ratio": rendered.median_ms / minimal.median_ms,
                "bare table same cells s": bare.median_ms / 1000,
                "ratio to bare table": rendered.median_ms / bare.median_ms,
            },
        )
    report.note(
        "one piece = build the data from the database + render HTML + WeasyPrint layout + PDF bytes; "
        f"parallel = the same, cut into pieces rendered by {processes} forked processes and joined "
        "(what render_pdf does from DOCUMENT_PARALLEL_MIN_ROWS rows), timed alternately with one "
        "piece; CPU s = the CPU time of the WeasyPrint render (one piece) and of each piece in its "
        "process (first sample; less than the wall time when other processes share the cores); "
        "minimal = WeasyPrint on plain paragraphs with the same page count, in the same run; "
        "ratios are of the one-piece time."
    )
