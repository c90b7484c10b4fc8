"""ECCN classification from a part's published figures (Commerce Control List, 15 CFR 774).

No Django imports. The engine applies the 3A090 thresholds (TPP, PD), the 4A090 "contains a
3A090 IC" rule, the .z paragraphs, and the encryption entries 5A992.c / 5A002. Everything else
is a category default (EAR99, 5A991, 4A994) that the result flags with ``needs_confirmation``:
the engine did not assess every CCL entry that could apply, so the manufacturer's
classification decides.

It never guesses a missing figure: a result without the figures a rule needs is
``status="incomplete"`` with the figures named in ``missing``. A server with no accelerator
recorded is incomplete too, unless ``cpu_only`` affirms it contains none.

Every decisive reasoning line cites the CCL paragraph it applies, as "[15 CFR 774 Supp. 1,
ECCN 3A090.a.1]"; a value compared with a threshold is printed with as many decimals as it takes
not to look equal to the threshold when it is not ("PD 5.9199 < 5.92", never "PD 5.92 < 5.92").

A figure that cannot be right (a die area of 0, a negative TPP, a float) raises ``FigureError``
(a ``ValueError``; ``FigureTypeError`` is also a ``TypeError``) naming the figure in ``.figure``.

Thresholds (3A090, as of the 2026-07-23 eCFR snapshot):
- TPP = dense TOPS/TFLOPS × bit length, at the bit length giving the highest value.
- PD = TPP / die area (mm²).
- 3A090.a.1: TPP ≥ 4,800; 3A090.a.2: TPP ≥ 1,600 and PD ≥ 5.92.
- 3A090.b.1: 2,400 ≤ TPP < 4,800 and 1.6 ≤ PD < 5.92; 3A090.b.2: TPP ≥ 1,600 and 3.2 ≤ PD < 5.92.
- 3A090.c: HBM with memory bandwidth density > 2 GB/s per mm².
- Note to 3A090: items neither designed nor marketed for data centres with TPP < 4,800 are not
  3A090.a/.b.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

RULE_VERSION = "ccl-2026-07-23.1"

CATEGORIES = (
    "accelerator",
    "server",
    "network_switch",
    "nic_dpu",
    "optical_transceiver",
    "cable",
    "storage_system",
    "pdu",
    "cooling_cdu",
    "rack",
    "ups_battery",
    "other",
)

TPP_A = Decimal(4800)
TPP_FLOOR = Decimal(1600)
TPP_B_LOW = Decimal(2400)
PD_A = Decimal("5.92")
PD_B_LOW = Decimal("1.6")
PD_B_ALT = Decimal("3.2")
HBM_DENSITY = Decimal(2)

CCL = "15 CFR 774 Supp. 1"
TECHNICAL_NOTES = "3A090 Technical Notes"
CRYPTOGRAPHY_NOTE = "Category 5 Part 2, Note 3 (Cryptography Note)"
# The engine's answer for a server with no accelerator recorded and no CPU-only affirmation.
NO_ACCELERATOR = "accelerator (or affirm the server is CPU-only)"


def cite(paragraph: str) -> str:
    """ "3A090.a.1" → "[15 CFR 774 Supp. 1, ECCN 3A090.a.1]"; a note's name is cited as given."""
    if paragraph[:1].isdigit() and "Note" not in paragraph:
        paragraph = f"ECCN {paragraph}"
    return f"[{CCL}, {paragraph}]"


# Categories that carry no processor or crypto in the ordinary case: EAR99 unless a figure says
# otherwise (encryption=True sends them to the encryption entries, e.g. a PDU with TLS management).
_PASSIVE_DEFAULTS = {
    "optical_transceiver": "an optical transceiver (interconnect optics, no processor)",
    "cable": "a cable (passive copper or optical interconnect)",
    "pdu": "a power distribution unit",
    "cooling_cdu": "a coolant distribution unit",
    "rack": "a rack enclosure",
    "ups_battery": "a UPS or battery system",
}
_NETWORK = {"network_switch": "network switch", "nic_dpu": "NIC/DPU", "storage_system": "storage system"}

Status = Literal["classified", "incomplete"]


def fmt(value: Decimal | int, places: int | None = None) -> str:
    """15832 → "15,832"; 19.4496 with places=2 → "19.45". No exponent notation, no float."""
    value = Decimal(value)
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    elif value == value.to_integral_value():
        value = value.quantize(Decimal(1))
    else:
        value = value.normalize()
    return f"{value:,f}"


def fmt_against(value: Decimal, *thresholds: Decimal, places: int = 2) -> str:
    """``value`` with at least ``places`` decimals, and more when fewer would print it equal to (or
    on the other side of) one of ``thresholds``: 5.9199 against 5.92 → "5.9199", not "5.92"."""
    value = Decimal(value)
    for p in range(places, 29):
        shown = value.quantize(Decimal(1).scaleb(-p), rounding=ROUND_HALF_UP)
        if all((shown > t) - (shown < t) == (value > t) - (value < t) for t in thresholds):
            return fmt(shown, p)
    return fmt(value)


class FigureError(ValueError):
    """A figure that cannot be right (e.g. a die area of 0); ``figure`` names it."""

    def __init__(self, figure: str, message: str) -> None:
        super().__init__(message)
        self.figure = figure


class FigureTypeError(FigureError, TypeError):
    """A figure of a type the engine refuses (a binary float)."""


def _to_decimal(value: object, name: str) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, (bool, float)):
        # Binary floats carry rounding noise into threshold comparisons; make the caller choose.
        raise FigureTypeError(name, f"{name} must be a Decimal, int or str, not {type(value).__name__}")
    try:
        result = Decimal(value)  # type: ignore[arg-type]
    except Exception as exc:
        raise FigureError(name, f"{name} is not a number: {value!r}") from exc
    if not result.is_finite() or result < 0:
        raise FigureError(name, f"{name} must be a finite, non-negative number, got {value!r}")
    return result


@dataclass(frozen=True)
class PartFigures:
    """Published figures for one catalogue part. ``None`` means unknown, never "no"."""

    name: str
    category: str
    tpp: Decimal | None = None
    dense_tops: dict[int, Decimal] = field(default_factory=dict)
    die_area_mm2: Decimal | None = None
    data_centre: bool | None = None
    accelerator: PartFigures | None = None
    accelerator_count: int | None = None
    encryption: bool | None = None
    mass_market: bool | None = None
    memory_bandwidth_density: Decimal | None = None
    # For a server with no accelerator recorded: True affirms it contains none (a CPU-only computer).
    cpu_only: bool | None = None

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise FigureError(
                "category", f"unknown category {self.category!r}; expected one of {', '.join(CATEGORIES)}"
            )
        for name in ("tpp", "die_area_mm2", "memory_bandwidth_density"):
            object.__setattr__(self, name, _to_decimal(getattr(self, name), name))
        if self.die_area_mm2 is not None and self.die_area_mm2 == 0:
            raise FigureError("die_area_mm2", "die_area_mm2 must be greater than zero")
        dense: dict[int, Decimal] = {}
        for bits, tops in (self.dense_tops or {}).items():
            if isinstance(bits, bool) or not isinstance(bits, int) or bits <= 0:
                raise FigureError(
                    "dense_tops", f"dense_tops keys are bit lengths (positive ints), got {bits!r}"
                )
            try:
                dense[bits] = _to_decimal(tops, f"dense_tops[{bits}]")  # type: ignore[assignment]
            except FigureError as exc:
                raise type(exc)("dense_tops", str(exc)) from exc
        object.__setattr__(self, "dense_tops", dense)
        if self.accelerator_count is not None and (
            isinstance(self.accelerator_count, bool)
            or not isinstance(self.accelerator_count, int)
            or self.accelerator_count < 0
        ):
            raise FigureError("accelerator_count", "accelerator_count must be a whole number, not negative")
        for name in ("data_centre", "encryption", "mass_market", "cpu_only"):
            if not (getattr(self, name) is None or isinstance(getattr(self, name), bool)):
                raise FigureTypeError(
                    name, f"{name} must be True, False or None, got {getattr(self, name)!r}"
                )


@dataclass
class Classification:
    """The ECCN (or why there is none yet), the reasoning in words, and the figures behind it.

    ``needs_confirmation`` is True when the ECCN is a category default rather than the result of
    figures checked against a CCL entry's parameters.
    """

    eccn: str | None
    status: Status
    reasoning: list[str]
    figures_used: dict[str, str]
    missing: list[str]
    rule_version: str = RULE_VERSION
    needs_confirmation: bool = False


def compute_tpp(figures: PartFigures) -> tuple[Decimal | None, str]:
    """TPP as given, else the highest dense TOPS × bit length; with the sum written out."""
    if figures.tpp is not None:
        return figures.tpp, f"TPP {fmt(figures.tpp)} as given"
    if not figures.dense_tops:
        return None, "no TPP and no dense TOPS/TFLOPS figure"
    products = {bits: tops * bits for bits, tops in figures.dense_tops.items()}
    # Highest product wins; on a tie the longer bit length (the datasheet's headline precision).
    best = max(products, key=lambda bits: (products[bits], bits))
    text = f"dense {best}-bit {fmt(figures.dense_tops[best])} TOPS × {best} = {fmt(products[best])}"
    others = [
        f"{bits}-bit {fmt(figures.dense_tops[bits])} × {bits} = {fmt(products[bits])}"
        for bits in sorted(products, reverse=True)
        if bits != best
    ]
    if others:
        text += f" (highest of {len(products)} precisions; also {'; '.join(others)})"
    return products[best], text


def _incomplete(reasoning: list[str], used: dict[str, str], missing: list[str]) -> Classification:
    return Classification(None, "incomplete", reasoning, used, missing)


def _classify_chip(f: PartFigures, used: dict[str, str]) -> Classification:
    """3A090.a / .b for an accelerator, or below the thresholds (eccn None, status classified)."""
    reasoning: list[str] = []
    tpp, how = compute_tpp(f)
    used["data_centre"] = {True: "yes", False: "no", None: "unknown"}[f.data_centre]
    if f.die_area_mm2 is not None:
        used["die_area_mm2"] = fmt(f.die_area_mm2)
    if tpp is None:
        missing = ["tpp or dense_tops"]
        if f.die_area_mm2 is None:
            missing.append("die_area_mm2")
        reasoning.append(
            "3A090 turns on TPP: give the TPP or the dense TOPS/TFLOPS per bit length "
            + cite(TECHNICAL_NOTES)
        )
        return _incomplete(reasoning, used, missing)
    used["tpp"] = fmt(tpp)
    used["tpp_basis"] = "given" if f.tpp is not None else how
    if f.dense_tops:
        used["dense_tops"] = "; ".join(f"{b}-bit {fmt(t)}" for b, t in sorted(f.dense_tops.items()))
    tpp_note = f"{cite(TECHNICAL_NOTES)}: TPP = 2 × MacTOPS × bit length, dense"
    reasoning.append(f"{how} {tpp_note}" if f.tpp is None else f"TPP {fmt(tpp)} (given) {tpp_note}")
    t = fmt(tpp)

    pd: Decimal | None = None
    p = ""
    if f.die_area_mm2 is not None:
        pd = tpp / f.die_area_mm2
        p = fmt_against(pd, PD_A, PD_B_LOW, PD_B_ALT)
        used["pd"] = p
        reasoning.append(
            f"PD = TPP {t} / die area {fmt(f.die_area_mm2)} mm² = {p} "
            f"{cite(TECHNICAL_NOTES)}: PD = TPP / applicable die area"
        )

    if tpp < TPP_FLOOR:
        reasoning.append(f"TPP {t} < 1,600 → below every 3A090.a/.b threshold {cite('3A090.a and .b')}")
        return Classification(None, "classified", reasoning, used, [])

    if tpp < TPP_A and f.data_centre is False:
        reasoning.append(
            f"not designed or marketed for data centres and TPP {t} < 4,800 → "
            f"excluded from 3A090.a/.b {cite('Note to 3A090')}"
        )
        return Classification(None, "classified", reasoning, used, [])

    if tpp >= TPP_A:
        reasoning.append(f"TPP {t} ≥ 4,800 → 3A090.a (PD not needed) {cite('3A090.a.1')}")
        if f.data_centre is False:
            reasoning.append(
                "not designed or marketed for data centres, but TPP ≥ 4,800 keeps it controlled "
                f"{cite('Note to 3A090')}; NAC/ACA may be available"
            )
        return Classification("3A090.a", "classified", reasoning, used, [])

    if pd is None:
        reasoning.append(
            f"TPP {t} is between 1,600 and 4,800: 3A090.a.2/.b then turn on PD, which needs the die area "
            f"{cite('3A090.a.2, .b.1, .b.2')}"
        )
        return _incomplete(reasoning, used, ["die_area_mm2"])

    if f.data_centre is None:
        reasoning.append(
            "data-centre design/marketing unknown: treated as a data-centre item (the conservative "
            "reading; a non-data-centre item with TPP < 4,800 would not be 3A090.a/.b "
            f"{cite('Note to 3A090')})"
        )
    if pd >= PD_A:
        reasoning.append(f"TPP {t} ≥ 1,600 and PD {p} ≥ 5.92 → 3A090.a {cite('3A090.a.2')}")
        return Classification("3A090.a", "classified", reasoning, used, [])
    if tpp >= TPP_B_LOW and pd >= PD_B_LOW:
        reasoning.append(f"2,400 ≤ TPP {t} < 4,800 and 1.6 ≤ PD {p} < 5.92 → 3A090.b {cite('3A090.b.1')}")
        return Classification("3A090.b", "classified", reasoning, used, [])
    if pd >= PD_B_ALT:
        reasoning.append(f"TPP {t} ≥ 1,600 and 3.2 ≤ PD {p} < 5.92 → 3A090.b {cite('3A090.b.2')}")
        return Classification("3A090.b", "classified", reasoning, used, [])
    reasoning.append(
        f"TPP {t} with PD {p} meets neither 3A090.a (PD ≥ 5.92) nor 3A090.b "
        f"(TPP ≥ 2,400 with PD ≥ 1.6, or PD ≥ 3.2) → below 3A090 {cite('3A090.a.2, .b.1, .b.2')}"
    )
    return Classification(None, "classified", reasoning, used, [])


def _classify_accelerator(f: PartFigures) -> Classification:
    used = {"category": f.category}
    result = _classify_chip(f, used)
    if result.status == "incomplete" or result.eccn is not None:
        return result
    result.eccn = "EAR99"
    result.needs_confirmation = True
    result.reasoning.append(
        "below 3A090 thresholds; no other CCL entry assessed by this engine → EAR99 only as a "
        f"default {cite('EAR99')} — confirm with the manufacturer's classification (3A991 or 4A994 may apply)"
    )
    return result


def _prefixed(result: Classification, prefix: str) -> tuple[list[str], dict[str, str], list[str]]:
    return (
        [f"{prefix}: {line}" for line in result.reasoning],
        {f"{prefix}.{k}": v for k, v in result.figures_used.items()},
        [f"{prefix}.{m}" for m in result.missing],
    )


def _encryption_eccn(
    f: PartFigures, what: str, reasoning: list[str], used: dict[str, str]
) -> tuple[str | None, list[str]]:
    """5A992.c / 5A002.a for an encrypting item; (None, missing) when a figure is unknown."""
    used["encryption"] = {True: "yes", False: "no", None: "unknown"}[f.encryption]
    if f.encryption is None:
        reasoning.append(
            f"a {what} may implement encryption (MACsec, IPsec, TLS management): whether it does "
            "decides between 5A992/5A002 and the non-crypto entries"
        )
        return None, ["encryption"]
    if f.encryption is False:
        reasoning.append(f"the {what} implements no encryption → not 5A992/5A002 {cite('5A002.a, 5A992.c')}")
        return None, []
    used["mass_market"] = {True: "yes", False: "no", None: "unknown"}[f.mass_market]
    if f.mass_market is None:
        reasoning.append(
            "implements encryption: mass-market status decides 5A992.c vs 5A002 " + cite(CRYPTOGRAPHY_NOTE)
        )
        return None, ["mass_market"]
    if f.mass_market:
        reasoning.append(f"implements encryption and is mass market → 5A992.c (AT only) {cite('5A992.c')}")
        return "5A992.c", []
    reasoning.append(
        f"implements encryption and is not mass market → 5A002.a (NS 1, AT 1, EI; ENC) {cite('5A002.a')}"
    )
    return "5A002.a", []


def _classify_contents(f: PartFigures, reasoning: list[str], used: dict[str, str]) -> Classification | None:
    """The accelerator inside a system, or None if there is none.

    Returns an incomplete result when the accelerator's figures are short, a Classification whose
    eccn is "3A090.a"/"3A090.b" when it meets 3A090, or one with eccn None when below.
    """
    if f.accelerator is None and f.category != "server":
        return None
    used["accelerator_count"] = "unknown" if f.accelerator_count is None else str(f.accelerator_count)
    if f.accelerator is None:
        return None
    if f.cpu_only:
        reasoning.append("affirmed CPU-only, but an accelerator is recorded: the accelerator decides")
    inner = _classify_chip(f.accelerator, {"category": f.accelerator.category})
    lines, inner_used, inner_missing = _prefixed(inner, "accelerator")
    reasoning.extend(lines)
    used["accelerator"] = f.accelerator.name
    used.update(inner_used)
    if inner.status == "incomplete":
        reasoning.append(
            f"the accelerator's figures are incomplete, so the system cannot be classified {cite('4A090')}"
        )
        return _incomplete(reasoning, used, inner_missing)
    return inner


def classify(figures: PartFigures) -> Classification:
    """Classify one part. See the module docstring for the thresholds and defaults."""
    f = figures
    if f.category == "accelerator":
        return _classify_accelerator(f)

    reasoning: list[str] = []
    used: dict[str, str] = {"category": f.category}
    contents = _classify_contents(f, reasoning, used)
    if contents is not None and contents.status == "incomplete":
        return contents
    chip_eccn = contents.eccn if contents is not None else None  # "3A090.a" / "3A090.b" / None
    acc_name = f.accelerator.name if f.accelerator is not None else ""
    if contents is not None and chip_eccn is None:
        reasoning.append(f"contains {acc_name} below 3A090 → not 4A090 {cite('4A090')}")

    if f.category in _NETWORK:
        what = _NETWORK[f.category]
        crypto_eccn, missing = _encryption_eccn(f, what, reasoning, used)
        if missing:
            return _incomplete(reasoning, used, missing)
        if crypto_eccn is not None and chip_eccn is not None:
            z = crypto_eccn.split(".")[0] + ".z"
            reasoning.append(f"otherwise {crypto_eccn} and contains a {chip_eccn} processor → {z} {cite(z)}")
            return Classification(z, "classified", reasoning, used, [])
        if chip_eccn is not None:
            eccn = "4A090." + chip_eccn[-1]
            reasoning.append(
                f"no encryption (no .z base entry applies) and contains a {chip_eccn} processor → {eccn} "
                f"{cite(eccn)}"
            )
            return Classification(eccn, "classified", reasoning, used, [])
        if crypto_eccn is not None:
            return Classification(crypto_eccn, "classified", reasoning, used, [])
        if f.category == "storage_system":
            reasoning.append(
                f"storage system without encryption → EAR99 as a default {cite('EAR99')}; confirm with the "
                "manufacturer's classification (5A992.c if it encrypts, 4A994 may apply)"
            )
            return Classification("EAR99", "classified", reasoning, used, [], needs_confirmation=True)
        reasoning.append(
            f"{what} without encryption → 5A991 (telecommunications equipment, AT only) as a default "
            f"{cite('5A991')}; confirm with the manufacturer's classification"
        )
        return Classification("5A991", "classified", reasoning, used, [], needs_confirmation=True)

    if chip_eccn is not None:
        eccn = "4A090." + chip_eccn[-1]
        count = f" × {f.accelerator_count}" if f.accelerator_count else ""
        reasoning.append(f"contains {acc_name}{count} meeting {chip_eccn} → {eccn} {cite(eccn)}")
        return Classification(eccn, "classified", reasoning, used, [])

    if f.category == "server":
        return _classify_server_without_3a090(f, contents, reasoning, used)

    if f.category in _PASSIVE_DEFAULTS:
        if f.encryption:
            crypto_eccn, missing = _encryption_eccn(f, f.category.replace("_", " "), reasoning, used)
            if missing:
                return _incomplete(reasoning, used, missing)
            return Classification(crypto_eccn, "classified", reasoning, used, [])
        used["encryption"] = {True: "yes", False: "no", None: "unknown (not expected)"}[f.encryption]
        reasoning.append(
            f"{_PASSIVE_DEFAULTS[f.category]}: subject to the EAR but on no CCL entry in the ordinary "
            f"case → EAR99 {cite('EAR99')}; confirm per item"
            + ("" if f.encryption is False else " (encryption not recorded: such items do not implement it)")
        )
        return Classification("EAR99", "classified", reasoning, used, [], needs_confirmation=True)

    # "other": the engine has no rule for it beyond HBM (3A090.c).
    if f.memory_bandwidth_density is not None:
        used["memory_bandwidth_density"] = f"{fmt(f.memory_bandwidth_density)} GB/s per mm²"
        if f.memory_bandwidth_density > HBM_DENSITY:
            reasoning.append(
                f"memory bandwidth density {fmt(f.memory_bandwidth_density)} GB/s per mm² > 2 → 3A090.c "
                f"{cite('3A090.c')}"
            )
            return Classification("3A090.c", "classified", reasoning, used, [])
        reasoning.append(
            f"memory bandwidth density {fmt(f.memory_bandwidth_density)} GB/s per mm² ≤ 2 → not 3A090.c "
            f"{cite('3A090.c')}"
        )
    reasoning.append("category 'other': no rule in this engine classifies it")
    return _incomplete(reasoning, used, ["a compliance officer's classification"])


def _classify_server_without_3a090(
    f: PartFigures, contents: Classification | None, reasoning: list[str], used: dict[str, str]
) -> Classification:
    if contents is None:
        used["cpu_only"] = {True: "yes", False: "no", None: "unknown"}[f.cpu_only]
        if f.accelerator_count or f.tpp is not None or f.dense_tops:
            # A GPU server entered without its accelerator must not fall silently to 4A994.
            reasoning.append(
                "the server has accelerators or compute figures but no accelerator recorded: 4A090 turns "
                f"on the ICs it contains {cite('4A090')}"
                + ("; this contradicts its CPU-only affirmation" if f.cpu_only else "")
            )
            return _incomplete(reasoning, used, ["accelerator"])
        if not f.cpu_only:
            # "DGX B200" saved as a server with nothing recorded is not a CPU-only computer.
            reasoning.append(
                "no accelerator recorded and the server is not affirmed CPU-only: a GPU server would be "
                f"4A090 {cite('4A090')}, so record its accelerator or affirm that it has none"
            )
            return _incomplete(reasoning, used, [NO_ACCELERATOR])
        reasoning.append("no accelerator recorded, and affirmed CPU-only")
    reasoning.append(
        f"computer not containing a 3A090 IC → 4A994 (other computers, AT only) {cite('4A994')}; "
        "a default: confirm with the manufacturer's classification"
    )
    return Classification("4A994", "classified", reasoning, used, [], needs_confirmation=True)
