"""Lines in bulk read from CSV or JSON (`engines.line_rows`): columns by their usual names, rows
numbered as a spreadsheet numbers them, each problem of form named by row and field."""

from decimal import Decimal

from apps.shipments.engines.line_rows import MAX_ROWS, read_csv, read_json, split_serials


def test_a_spreadsheet_paste_is_read_with_its_row_numbers():
    rows, problems = read_csv("Part No\tQty\tSerial numbers\nDGX-H100\t2\tA B\n\t\t\nMQM9700\t1,000\t\n")
    assert problems == []
    assert [(r.row, r.part_number, r.quantity, r.serials) for r in rows] == [
        (2, "DGX-H100", 2, ["A", "B"]),
        (4, "MQM9700", 1000, []),
    ]


def test_problems_of_form_name_the_row_and_field():
    rows, problems = read_csv('part_number,quantity,unit_value\n,1,\nX,0,\nY,1,abc\nZ,1,"1,250.50"\n')
    assert [(p.row, p.field) for p in problems] == [(2, "part_number"), (3, "quantity"), (4, "unit_value")]
    assert [(r.row, r.unit_value) for r in rows] == [(5, Decimal("1250.50"))]


def test_a_header_without_the_columns_is_refused_by_name():
    _rows, problems = read_csv("sku,count\nA,1\n")
    assert len(problems) == 1 and problems[0].row == 1
    assert (
        "no part_number or quantity column" in problems[0].message
        and "unknown columns sku, count" in problems[0].message
    )


def test_json_rows_are_numbered_from_one_and_unknown_fields_refused():
    rows, problems = read_json([{"part_number": "A", "quantity": 1, "serials": "S1;S2"}, {"part": "B"}])
    assert [(r.row, r.serials) for r in rows] == [(1, ["S1", "S2"])]
    assert [(p.row, p.field) for p in problems] == [(2, "part")]


def test_too_many_rows_are_refused_whole():
    _rows, problems = read_json([{"part_number": "A", "quantity": 1}] * (MAX_ROWS + 1))
    assert [p.field for p in problems] == ["lines"]


def test_serials_split_on_spaces_commas_and_semicolons():
    assert split_serials(" A, B;C  D ") == ["A", "B", "C", "D"]
    assert split_serials(["A ", "B"]) == ["A", "B"]
