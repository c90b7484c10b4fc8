"""The design pages' charts (apps/clusters/charts/sizing.py), parsed as SVG: every bar and rack slot is
there with its label and value, drawn to scale, with a title and a description in words."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from apps.clusters.charts import sizing as charts
from apps.clusters.charts.sizing import Bar, Slot

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def bars(root: ElementTree.Element) -> list[ElementTree.Element]:
    return [g for g in root.iter(f"{NS}g") if g.get("class") == "bar"]


def text_of(group: ElementTree.Element, css_class: str) -> str:
    return next(t.text for t in group.iter(f"{NS}text") if t.get("class") == css_class)


def test_a_bar_chart_draws_each_bar_with_its_label_and_value_to_scale():
    root = parse(
        charts.bar_chart(
            [Bar("Systems", 652.8), Bar("Compute switches", 41.28), Bar("Optics", 15.36)],
            title="IT power by component",
            unit="kW",
        )
    )
    assert root.get("role") == "img"
    title, desc = root.find(f"{NS}title"), root.find(f"{NS}desc")
    assert title.text == "IT power by component"
    assert (
        desc.text == "IT power by component. Systems: 652.8 kW; Compute switches: 41.28 kW; Optics: 15.36 kW."
    )
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    drawn = bars(root)
    assert [g.get("data-label") for g in drawn] == ["Systems", "Compute switches", "Optics"]
    assert [text_of(g, "bar-label") for g in drawn] == ["Systems", "Compute switches", "Optics"]
    assert [text_of(g, "bar-value") for g in drawn] == ["652.8 kW", "41.28 kW", "15.36 kW"]
    widths = [float(g.find(f"{NS}rect").get("width")) for g in drawn]
    # The largest bar spans the plot; the others in proportion.
    assert widths[0] == pytest.approx(640 - 240 - 110)
    assert widths[1] / widths[0] == pytest.approx(41.28 / 652.8, rel=1e-3)
    assert widths[2] / widths[0] == pytest.approx(15.36 / 652.8, rel=1e-3)


def test_an_empty_or_all_zero_chart_draws_without_dividing_by_zero():
    empty = parse(charts.bar_chart([], title="Switches per tier", unit="switches"))
    assert bars(empty) == [] and empty.find(f"{NS}desc").text == "Switches per tier: nothing to show."
    zeros = parse(charts.bar_chart([Bar("Compute core", 0)], title="Switches", unit="switches"))
    (bar,) = bars(zeros)
    assert bar.find(f"{NS}rect").get("width") == "0.00" and text_of(bar, "bar-value") == "0 switches"


def test_text_from_the_catalogue_is_escaped():
    root = parse(charts.bar_chart([Bar('<script>"x"</script> & co', 3)], title="A < B", unit="kW"))
    assert root.find(f"{NS}title").text == "A < B"
    assert text_of(bars(root)[0], "bar-label") == '<script>"x"</script> & co'
    assert not list(root.iter("script")) and not list(root.iter(f"{NS}script"))


def test_a_rack_elevation_draws_each_piece_to_scale_with_the_rack_count():
    root = parse(
        charts.rack_elevation(
            [Slot("DGX H100", 8, 6), Slot("PDU 60 A", 0, 4)],
            rack_units=48,
            count=10,
            kind="compute",
            it_kw=61.56,
        )
    )
    assert root.get("data-count") == "10" and root.get("data-used") == "48"
    assert root.find(f"{NS}title").text == "Compute rack × 10 racks"
    assert root.find(f"{NS}desc").text == (
        "Compute rack × 10 racks: 48 of 48 U used, 61.56 kW IT load per rack. "
        "6 × DGX H100 (8 U each); 4 × PDU 60 A (0 U)."
    )
    texts = {t.get("class"): "".join(t.itertext()) for t in root.iter(f"{NS}text")}
    assert texts["rack-count"] == "× 10 racks"
    assert texts["rack-used"] == "48 of 48 U used, 61.56 kW IT load per rack"
    assert texts["rack-side-label"] == "4 × PDU 60 A at the side"
    slots = [g for g in root.iter(f"{NS}g") if g.get("class") == "rack-slot"]
    assert [g.get("data-position") for g in slots] == ["1", "9", "17", "25", "33", "41"]
    frame = next(r for r in root.iter(f"{NS}rect") if r.get("class") == "rack-frame")
    unit = float(frame.get("height")) / 48
    for slot in slots:
        box = slot.find(f"{NS}rect")
        assert float(box.get("height")) + 1 == pytest.approx(8 * unit)  # 8 U, less the gap
        assert text_of(slot, "slot-label") == "DGX H100"
    # The first sits at the bottom of the frame.
    first = slots[0].find(f"{NS}rect")
    bottom = float(frame.get("y")) + float(frame.get("height"))
    assert float(first.get("y")) + float(first.get("height")) == pytest.approx(bottom - 0.5)


def test_thin_pieces_are_named_once_across_their_run():
    root = parse(charts.rack_elevation([Slot("QM9700 leaf", 1, 16)], rack_units=48, count=1, kind="network"))
    slots = [g for g in root.iter(f"{NS}g") if g.get("class") == "rack-slot"]
    assert len(slots) == 16 and root.find(f"{NS}title").text == "Network rack × 1 rack"
    labels = [t for t in root.iter(f"{NS}text") if t.get("class", "").startswith("slot-label")]
    assert [t.text for t in labels] == ["16 × QM9700 leaf"]
    top_piece = min(float(g.find(f"{NS}rect").get("y")) for g in slots)
    assert float(labels[0].get("y")) < top_piece  # above the run of switches, on the empty rack


def test_a_switch_chart_says_one_switch():
    root = parse(
        charts.bar_chart([Bar("Spine", 1), Bar("Leaf", 2)], title="S", unit="switches", unit_one="switch")
    )
    assert [text_of(g, "bar-value") for g in bars(root)] == ["1 switch", "2 switches"]


def test_a_rack_filled_past_its_units_is_drawn_whole_and_marked():
    root = parse(charts.rack_elevation([Slot("CS-3", 15, 4)], rack_units=42, count=2, kind="compute"))
    assert root.get("data-used") == "60"
    assert len([g for g in root.iter(f"{NS}g") if g.get("class") == "rack-slot"]) == 4
    assert any(line.get("class") == "rack-overflow" for line in root.iter(f"{NS}line"))


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1024, "1,024"), (652.8, "652.8"), (0.74542, "0.745"), (22.153673, "22.15"), (0.0175114, "0.0175"),
     (3000.0, "3,000"), (True, "yes"), (0, "0")],
)  # fmt: skip
def test_numbers_read_as_people_write_them(value, shown):
    assert charts.number(value) == shown


def test_in_row_cdus_are_drawn_as_cabinets_not_racks():
    root = parse(charts.rack_elevation([Slot("In-row CDU", 48, 1)], rack_units=48, count=2, kind="cooling"))
    assert root.find(f"{NS}title").text == "CDU cabinet × 2 cabinets"
    texts = {t.get("class"): "".join(t.itertext()) for t in root.iter(f"{NS}text")}
    assert texts["rack-title"] == "CDU cabinet"


def test_the_run_pictures_show_in_rack_cdus_and_shared_switch_racks():
    """The seed's racks as the engine lays them out: each compute rack with its in-rack CDUs in
    its units, every switch in the network racks; the in-row CDU cabinets are not counted as racks."""
    from types import SimpleNamespace

    from apps.clusters.engines.examples import ROW_CDU
    from apps.clusters.engines.sizing import size
    from apps.clusters.views.designs import result_charts

    from .test_engine_racks import speech

    run = SimpleNamespace(inputs={"racks": {"rack": {"rack_units": 48}}})
    svgs = [parse(str(svg)) for svg in result_charts(run, size(speech()))["rack_svgs"]]
    compute = next(svg for svg in svgs if svg.get("data-kind") == "compute")
    labels = [g.get("data-label") for g in compute.iter(f"{NS}g") if g.get("class") == "rack-slot"]
    assert labels.count("In-rack CDU") == 2 and labels.count("HGX H100 LC") == 10
    assert compute.get("data-used") == "48"
    network = [svg for svg in svgs if svg.get("data-kind") == "network"]
    drawn = {
        g.get("data-label") for svg in network for g in svg.iter(f"{NS}g") if g.get("class") == "rack-slot"
    }
    assert {"QM9700 compute leaf", "QM9700 compute spine", "SN2201 out-of-band leaf"} <= drawn
    in_row = size(speech(cdu=ROW_CDU))
    pictures = result_charts(run, in_row)
    assert pictures["rack_count"] == in_row.value("racks.total")
    assert any(parse(str(svg)).get("data-kind") == "cooling" for svg in pictures["rack_svgs"])
