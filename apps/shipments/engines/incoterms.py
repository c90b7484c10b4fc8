"""Incoterms 2020: who clears customs, pays the main carriage, insures and pays duties.

No Django imports. The table follows the ICC rules as summarised in the freight reference; it
records the default split of duties, which a contract may still vary.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from enum import StrEnum
from typing import Literal

Party = Literal["seller", "buyer"]
InsuranceCover = Literal["all risks (ICC A)", "minimum (ICC C)"]

MODES = ("air", "ocean", "road", "multimodal")


class Incoterm(StrEnum):
    EXW = "EXW"
    FCA = "FCA"
    CPT = "CPT"
    CIP = "CIP"
    DAP = "DAP"
    DPU = "DPU"
    DDP = "DDP"
    FAS = "FAS"
    FOB = "FOB"
    CFR = "CFR"
    CIF = "CIF"


@dataclass(frozen=True)
class IncotermRule:
    """One Incoterms 2020 rule and the obligations that matter for planning and landed cost."""

    code: Incoterm
    name: str
    sea_only: bool
    export_clearance: Party
    import_clearance: Party
    main_carriage_paid_by: Party
    insurance_by: Literal["seller"] | None
    insurance_cover: InsuranceCover | None
    duties_paid_by: Party
    note: str = ""
    # The C rules price the goods with the main carriage (and, for CIP and CIF, its insurance): the
    # commercial invoice shows those charges and its total includes them. Under the others the
    # invoice states the goods value only, even when the seller pays the carriage (D rules).
    freight_on_invoice: bool = False

    @property
    def insurance_on_invoice(self) -> bool:
        return self.insurance_by == "seller"


def _rule(
    code: Incoterm,
    name: str,
    *,
    sea_only: bool = False,
    export_clearance: Party = "seller",
    import_clearance: Party = "buyer",
    main_carriage_paid_by: Party,
    insurance_cover: InsuranceCover | None = None,
    duties_paid_by: Party = "buyer",
    note: str = "",
    freight_on_invoice: bool = False,
) -> IncotermRule:
    return IncotermRule(
        code=code,
        name=name,
        sea_only=sea_only,
        export_clearance=export_clearance,
        import_clearance=import_clearance,
        main_carriage_paid_by=main_carriage_paid_by,
        insurance_by="seller" if insurance_cover else None,
        insurance_cover=insurance_cover,
        duties_paid_by=duties_paid_by,
        note=note,
        freight_on_invoice=freight_on_invoice,
    )


RULES: dict[Incoterm, IncotermRule] = {
    r.code: r
    for r in (
        _rule(
            Incoterm.EXW,
            "Ex Works",
            export_clearance="buyer",
            main_carriage_paid_by="buyer",
            note=(
                "The buyer arranges export clearance, but for controlled hardware the exporter keeps "
                "its EAR duties (licence determination, screening, records); prefer FCA."
            ),
        ),
        _rule(Incoterm.FCA, "Free Carrier", main_carriage_paid_by="buyer"),
        _rule(Incoterm.CPT, "Carriage Paid To", main_carriage_paid_by="seller", freight_on_invoice=True),
        _rule(
            Incoterm.CIP,
            "Carriage and Insurance Paid To",
            main_carriage_paid_by="seller",
            insurance_cover="all risks (ICC A)",
            freight_on_invoice=True,
        ),
        _rule(Incoterm.DAP, "Delivered at Place", main_carriage_paid_by="seller"),
        _rule(
            Incoterm.DPU,
            "Delivered at Place Unloaded",
            main_carriage_paid_by="seller",
            note="The seller also unloads at the named place.",
        ),
        _rule(
            Incoterm.DDP,
            "Delivered Duty Paid",
            import_clearance="seller",
            main_carriage_paid_by="seller",
            duties_paid_by="seller",
            note=(
                "The seller is importer of record: it clears import customs and pays duties and import "
                "VAT/GST, which it may not be able to reclaim without a local registration."
            ),
        ),
        _rule(Incoterm.FAS, "Free Alongside Ship", sea_only=True, main_carriage_paid_by="buyer"),
        _rule(
            Incoterm.FOB,
            "Free on Board",
            sea_only=True,
            main_carriage_paid_by="buyer",
            note="For containerised goods, FCA fits better: the seller hands over at the terminal.",
        ),
        _rule(
            Incoterm.CFR,
            "Cost and Freight",
            sea_only=True,
            main_carriage_paid_by="seller",
            freight_on_invoice=True,
        ),
        _rule(
            Incoterm.CIF,
            "Cost, Insurance and Freight",
            sea_only=True,
            main_carriage_paid_by="seller",
            insurance_cover="minimum (ICC C)",
            freight_on_invoice=True,
            note="Minimum cover only: high-value electronics usually need all-risks cover on top.",
        ),
    )
}

# The any-mode rule that does the same job as each sea-only one.
_ANY_MODE_EQUIVALENT = {
    Incoterm.FAS: Incoterm.FCA,
    Incoterm.FOB: Incoterm.FCA,
    Incoterm.CFR: Incoterm.CPT,
    Incoterm.CIF: Incoterm.CIP,
}


def rule(code: str) -> IncotermRule:
    """The rule for an Incoterm code such as 'FCA' (case and surrounding spaces ignored)."""
    key = (code or "").strip().upper()
    try:
        return RULES[Incoterm(key)]
    except ValueError:
        raise ValueError(f"Unknown Incoterm {code!r}; use one of {', '.join(Incoterm)}.") from None


EDITION = "Incoterms 2020"
# CIP and CIF, article A5: the cover is at least the price in the contract plus 10 %, under the
# Institute Cargo Clauses (A) for CIP and (C) for CIF.
MINIMUM_COVER = Decimal("1.10")
CARGO_CLAUSES: dict[str, str] = {
    "all risks (ICC A)": "Institute Cargo Clauses (A)",
    "minimum (ICC C)": "Institute Cargo Clauses (C)",
}
_CENT = Decimal("0.01")


def minimum_cover(value: Decimal) -> Decimal:
    """The least insured value for goods invoiced at `value` under CIP or CIF, to the cent (rounded
    up: insuring the figure shown always meets the 110 %)."""
    return (value * MINIMUM_COVER).quantize(_CENT, rounding=ROUND_CEILING)


def mode_problem(code: str, mode: str) -> str | None:
    """A sentence when the rule does not suit the transport mode, else None.

    FAS, FOB, CFR and CIF are for sea and inland waterway transport only.
    """
    if mode not in MODES:
        raise ValueError(f"Unknown transport mode {mode!r}; use one of {', '.join(MODES)}.")
    r = rule(code)
    if r.sea_only and mode != "ocean":
        alternative = RULES[_ANY_MODE_EQUIVALENT[r.code]]
        return (
            f"{r.code} ({r.name}) is for sea and inland waterway transport only, not {mode}; "
            f"use {alternative.code} ({alternative.name}) instead."
        )
    return None
