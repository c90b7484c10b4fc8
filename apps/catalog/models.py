"""The parts catalogue: every item Rackpass can put in a bill of materials or on a shipment."""

from __future__ import annotations

import json
import math
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse

from apps.core.fields import CountryField, CurrencyField, MoneyField
from apps.core.hscodes import hs_code_problem, normalise_hs_code
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW
from apps.core.validators import FREE_TEXT_MAX_LENGTH, text_problem

NON_NEGATIVE = [MinValueValidator(Decimal("0"))]

# Bounds on a part's figures, so that what is derived from them fits where it is stored and shown
# (docs/architecture.md, "Bounded input"), each well above any real item:
# - TPP at most 100,000,000 (a wafer-scale engine is about 1,000,000); dense TOPS × bit length
#   is held to the same bound, so the computed TPP fits too;
# - die area 1–100,000 mm² (a wafer-scale engine is 46,225 mm²), so performance density
#   (TPP / die area) stays at most 100,000,000;
# - a unit weighs 0.001–50,000 kg and measures 0.01–2,000 cm a side (a 40' container is 1,203 cm
#   long and carries about 28,000 kg): never zero, which would make freight free.
TPP_MAX = Decimal("100000000")
DENSE_TOPS_DECIMAL_PLACES = 4
DIE_AREA_MIN, DIE_AREA_MAX = Decimal("1"), Decimal("100000")
WEIGHT_BOUNDS = [MinValueValidator(Decimal("0.001")), MaxValueValidator(Decimal("50000"))]
SIDE_BOUNDS = [MinValueValidator(Decimal("0.01")), MaxValueValidator(Decimal("2000"))]
ATTRIBUTES_MAX_KEYS = 100
ATTRIBUTE_KEY_MAX_LENGTH = 64


def validate_positive(value: Decimal) -> None:
    # No field uses it any more; migrations 0002 refer to it.
    if value is not None and value <= 0:
        raise ValidationError("Must be greater than zero.", code="min_value")


# Figures the export-control classification turns on: typed fields on Part, refused as keys in
# `attributes` (where a string "false" was truthy, and crashed the classification).
RESERVED_ATTRIBUTES = (
    "data_centre", "encryption", "mass_market", "memory_bandwidth_density", "cpu_only", "ports_per_cage",
    "static_load_kg",
)  # fmt: skip


class Manufacturer(AuditedModel, TimeStampedModel):
    name = models.CharField(max_length=120)
    country = CountryField(blank=True, help_text="Where the manufacturer is headquartered.")
    website = models.URLField(blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(Lower("name"), name="catalog_manufacturer_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class PartCategory(models.TextChoices):
    ACCELERATOR = "accelerator", "Accelerator / GPU"
    SERVER = "server", "Server / system"
    NETWORK_SWITCH = "network_switch", "Network switch"
    NIC_DPU = "nic_dpu", "NIC / DPU"
    OPTICAL_TRANSCEIVER = "optical_transceiver", "Optical transceiver"
    CABLE = "cable", "Cable"
    STORAGE_SYSTEM = "storage_system", "Storage system"
    PDU = "pdu", "PDU"
    COOLING_CDU = "cooling_cdu", "Cooling / CDU"
    RACK = "rack", "Rack"
    UPS_BATTERY = "ups_battery", "UPS / battery"
    OTHER = "other", "Other"


class LithiumBatteryPacking(models.TextChoices):
    """How a part's lithium-ion batteries travel; decides the UN number and packing instruction."""

    CONTAINED_IN_EQUIPMENT = "contained_in_equipment", "Contained in equipment (UN3481, PI967)"
    PACKED_WITH_EQUIPMENT = "packed_with_equipment", "Packed with equipment (UN3481, PI966)"
    BATTERIES_ALONE = "batteries_alone", "Batteries on their own (UN3480, PI965)"


class PartQuerySet(OrgScopedQuerySet):
    def with_related(self) -> PartQuerySet:
        return self.select_related("manufacturer", "owner", "accelerator__manufacturer")


class Part(AuditedModel, TimeStampedModel):
    """A catalogue item with what customs, export control, freight and sizing need to know of it.

    Parts owned by the operator form the master catalogue, readable by every organisation;
    a supplier may keep parts of its own, which only it and the operator see.
    """

    owner = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="parts",
        help_text="Organisation that maintains this record.",
    )
    manufacturer = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="parts")
    part_number = models.CharField(max_length=80)
    name = models.CharField(max_length=200)
    description = models.TextField(
        blank=True, max_length=FREE_TEXT_MAX_LENGTH, validators=[MaxLengthValidator(FREE_TEXT_MAX_LENGTH)]
    )
    category = models.CharField(max_length=24, choices=PartCategory.choices, db_index=True)

    unit_weight_kg = models.DecimalField(max_digits=10, decimal_places=3, validators=WEIGHT_BOUNDS)
    length_cm = models.DecimalField(max_digits=8, decimal_places=2, validators=SIDE_BOUNDS)
    width_cm = models.DecimalField(max_digits=8, decimal_places=2, validators=SIDE_BOUNDS)
    height_cm = models.DecimalField(max_digits=8, decimal_places=2, validators=SIDE_BOUNDS)
    unit_value = MoneyField()
    currency = CurrencyField(default="USD")
    country_of_origin = CountryField()
    hs_code = models.CharField(
        "HS code",
        max_length=10,
        help_text="6-digit HS subheading, optionally with the destination's 8–10 digit extension.",
    )
    is_serialised = models.BooleanField("serialised", default=True)
    contains_lithium_batteries = models.BooleanField(default=False)
    # What the dangerous-goods classification (shipments.engines.freight) needs of the batteries.
    lithium_battery_packing = models.CharField(
        "how the lithium batteries travel",
        max_length=24,
        choices=LithiumBatteryPacking.choices,
        blank=True,
        help_text="Batteries on their own are UN3480 (cargo aircraft only); in or with equipment UN3481. "
        "Empty, for a part with lithium batteries, is read as contained in equipment.",
    )
    lithium_battery_wh = models.DecimalField(
        "lithium battery energy (Wh)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01")), MaxValueValidator(Decimal("10000000"))],
        help_text="Watt-hours of each battery (or module), not of the whole unit. Over 100 Wh is fully "
        "regulated (Section I / IA).",
    )
    lithium_battery_net_kg = models.DecimalField(
        "lithium battery net mass (kg)",
        max_digits=10,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.001")), MaxValueValidator(Decimal("50000"))],
        help_text="Net mass of the lithium batteries in one unit; decides the per-package air limits "
        "(5 kg on passenger aircraft, 35 kg on cargo aircraft).",
    )

    # Technical figures the sizing, export-control and freight engines read.
    # Upper bounds well above any real item (a 10 MW load, a 100U rack, 10,000 ports, 100 Tb/s).
    power_draw_w = models.PositiveIntegerField(
        "power draw (W)", null=True, blank=True, validators=[MaxValueValidator(10_000_000)]
    )
    rack_units = models.PositiveSmallIntegerField(null=True, blank=True, validators=[MaxValueValidator(100)])
    port_count = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(10_000)]
    )
    port_speed_gbps = models.PositiveIntegerField(
        "port speed (Gb/s)", null=True, blank=True, validators=[MaxValueValidator(100_000)]
    )
    ports_per_cage = models.PositiveSmallIntegerField(
        "ports per transceiver cage",
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(8)],
        help_text="For a server: its compute NICs' cages, 1 for single-port cages (8 single-port ConnectX-7 "
        "cards), 2 for twin-port OSFP cages (a DGX H100: 8 NICs in 4 cages). For a switch: 2 on a Quantum-2 "
        "QM9700 (64 ports in 32 OSFP cages). A node-side transceiver must carry as many links as a cage has "
        "ports.",
    )
    static_load_kg = models.DecimalField(
        "static load (kg)",
        max_digits=10,
        decimal_places=3,
        null=True,
        blank=True,
        validators=WEIGHT_BOUNDS,
        help_text="For a rack: the weight of equipment it carries standing (its static load rating).",
    )
    gpus_per_server = models.PositiveSmallIntegerField(
        "GPUs per server", null=True, blank=True, validators=[MaxValueValidator(1_024)]
    )
    accelerator = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="systems",
        limit_choices_to={"category": PartCategory.ACCELERATOR},
        help_text="For servers and systems: the accelerator they contain.",
    )
    tpp = models.DecimalField(
        "TPP",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[*NON_NEGATIVE, MaxValueValidator(TPP_MAX)],
        help_text=(
            "Total processing performance (dense TOPS × bit length). Computed from dense TOPS when empty. "
            "At most 100,000,000."
        ),
    )
    die_area_mm2 = models.DecimalField(
        "die area (mm²)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(DIE_AREA_MIN), MaxValueValidator(DIE_AREA_MAX)],
        help_text="Applicable die area: the logic dies on non-planar transistor nodes. 1 to 100,000 mm².",
    )
    dense_tops = models.JSONField(
        "dense TOPS by bit length",
        default=dict,
        blank=True,
        help_text='Dense (non-sparse) TOPS/TFLOPS per operand bit length, e.g. {"8": "1979", "16": "989.5"}.',
    )
    # Figures the export-control classification turns on (15 CFR 774, 3A090/4A090, 5A002/5A992).
    # Empty means "not known", never "no": the classification then says what is missing.
    data_centre = models.BooleanField(
        "designed or marketed for data centres",
        null=True,
        blank=True,
        help_text="3A090.a/.b do not apply to an IC neither designed nor marketed for data centres with "
        "TPP under 4,800. Unknown is read as yes for accelerators and servers (the conservative reading).",
    )
    encryption = models.BooleanField(
        "implements encryption",
        null=True,
        blank=True,
        help_text="Implements cryptography for data confidentiality (MACsec, IPsec, TLS management, "
        "self-encrypting drives). A switch, NIC/DPU or storage system cannot be classified without it.",
    )
    mass_market = models.BooleanField(
        "mass market",
        null=True,
        blank=True,
        help_text="For an item that encrypts: meets the mass-market criteria (Cryptography Note, 740.17(b)); "
        "decides 5A992.c (yes) against 5A002.a (no). The manufacturer's classification decides.",
    )
    memory_bandwidth_density = models.DecimalField(
        "memory bandwidth density (GB/s per mm²)",
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[*NON_NEGATIVE, MaxValueValidator(Decimal("1000"))],
        help_text="For high-bandwidth memory: bandwidth in GB/s divided by package area in mm². "
        "Above 2 is 3A090.c.",
    )
    cpu_only = models.BooleanField(
        "CPU-only (no accelerator)",
        null=True,
        blank=True,
        help_text="For a server with no accelerator recorded: yes affirms that it contains no GPU or AI "
        "accelerator. Without it such a server cannot be classified (it could be a GPU server).",
    )
    attributes = models.JSONField(
        default=dict,
        blank=True,
        help_text="Other figures, e.g. memory_gb, reach_m; not the export-control figures that have "
        "fields of their own (data centres, encryption, mass market, memory bandwidth density, CPU-only).",
    )
    is_active = models.BooleanField(default=True)

    objects = PartQuerySet.as_manager()

    # Matched and compared by people and systems: no invisible character may hide in it.
    identifier_fields = ("part_number",)

    # What people edit (browser form and API); owner and timestamps are set by the service.
    EDITABLE_FIELDS = (
        "manufacturer", "part_number", "name", "description", "category", "unit_weight_kg", "length_cm",
        "width_cm", "height_cm", "unit_value", "currency", "country_of_origin", "hs_code", "is_serialised",
        "contains_lithium_batteries", "lithium_battery_packing", "lithium_battery_wh",
        "lithium_battery_net_kg", "power_draw_w", "rack_units", "port_count", "port_speed_gbps",
        "ports_per_cage", "static_load_kg", "gpus_per_server", "accelerator", "cpu_only", "tpp",
        "die_area_mm2", "dense_tops", "data_centre", "encryption", "mass_market", "memory_bandwidth_density",
        "attributes", "is_active",
    )  # fmt: skip

    class Meta:
        ordering = ["manufacturer__name", "part_number"]
        constraints = [
            # Unique within one owner's catalogue: another organisation's private part never decides
            # whether a number is free; clean() also refuses a master catalogue number.
            models.UniqueConstraint(
                "owner", "manufacturer", Lower("part_number"), name="catalog_part_number_unique_per_owner"
            ),
            models.CheckConstraint(
                condition=Q(unit_weight_kg__gte=0), name="catalog_part_weight_non_negative"
            ),
            models.CheckConstraint(condition=Q(unit_value__gte=0), name="catalog_part_value_non_negative"),
            models.CheckConstraint(
                condition=Q(die_area_mm2__isnull=True) | Q(die_area_mm2__gt=0),
                name="catalog_part_die_area_positive",
                violation_error_message="The die area must be greater than zero.",
            ),
            models.CheckConstraint(
                condition=Q(memory_bandwidth_density__isnull=True) | Q(memory_bandwidth_density__gte=0),
                name="catalog_part_memory_bandwidth_density_non_negative",
            ),
            models.CheckConstraint(
                condition=(Q(lithium_battery_wh__isnull=True) | Q(lithium_battery_wh__gt=0))
                & (Q(lithium_battery_net_kg__isnull=True) | Q(lithium_battery_net_kg__gt=0)),
                name="catalog_part_lithium_battery_figures_positive",
                violation_error_message="Battery watt-hours and net mass must be greater than zero.",
            ),
            models.CheckConstraint(
                condition=Q(contains_lithium_batteries=True)
                | (
                    Q(lithium_battery_packing="")
                    & Q(lithium_battery_wh__isnull=True)
                    & Q(lithium_battery_net_kg__isnull=True)
                ),
                name="catalog_part_lithium_battery_figures_need_batteries",
                violation_error_message="Battery figures are only for a part with lithium batteries.",
            ),
        ]
        indexes = [models.Index(fields=["hs_code"])]

    def __str__(self) -> str:
        return f"{self.manufacturer} {self.part_number}" if self.manufacturer_id else self.part_number

    def get_absolute_url(self) -> str:
        return reverse("catalog:part-detail", args=[self.pk])

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        own = Q(owner_id=organisation_id)
        if action == VIEW:
            return own | Q(owner__kind="operator")
        return own

    def clean(self) -> None:
        errors: dict[str, str] = {}
        self.hs_code = normalise_hs_code(self.hs_code)
        self.part_number = (self.part_number or "").strip()
        if self.hs_code and (problem := hs_code_problem(self.hs_code)):
            errors["hs_code"] = problem
        if self.accelerator_id and self.category not in (PartCategory.SERVER,):
            errors["accelerator"] = "Only servers and systems contain an accelerator."
        elif (
            self.accelerator_id
            and self.owner_id
            and not (self.accelerator.owner_id == self.owner_id or self.accelerator.owner.kind == "operator")
        ):
            # Another organisation's private accelerator would read back through this part's
            # classification, and stop its owner deleting it.
            errors["accelerator"] = (
                "The accelerator must be a part of the master catalogue or of the same owner."
            )
        battery_figures = (
            self.lithium_battery_packing or self.lithium_battery_wh is not None or self.lithium_battery_net_kg
        )
        if battery_figures and not self.contains_lithium_batteries:
            errors["contains_lithium_batteries"] = (
                "Tick it, or clear the battery figures: they are only for a part with lithium batteries."
            )
        if (
            self.lithium_battery_net_kg is not None
            and self.unit_weight_kg is not None
            and self.lithium_battery_net_kg > self.unit_weight_kg
        ):
            errors["lithium_battery_net_kg"] = "The batteries cannot weigh more than the unit."
        if self.gpus_per_server and self.category != PartCategory.SERVER:
            errors["gpus_per_server"] = "Only servers and systems have GPUs per server."
        if self.ports_per_cage and self.category not in (
            PartCategory.SERVER, PartCategory.NETWORK_SWITCH, PartCategory.NIC_DPU
        ):  # fmt: skip
            errors["ports_per_cage"] = "Only servers, switches and NICs have transceiver cages."
        if self.static_load_kg is not None and self.category != PartCategory.RACK:
            errors["static_load_kg"] = "Only a rack has a static load."
        if self.dense_tops:
            problem = _dense_tops_problem(self.dense_tops)
            if problem:
                errors["dense_tops"] = problem
        if problem := _attributes_problem(self.attributes):
            errors["attributes"] = problem
        if self.cpu_only:
            if self.category != PartCategory.SERVER:
                errors["cpu_only"] = "Only a server is affirmed CPU-only."
            elif self.accelerator_id or self.gpus_per_server:
                errors["cpu_only"] = (
                    "A server with an accelerator or GPUs per server recorded is not CPU-only: "
                    "clear one or the other."
                )
        if self.manufacturer_id and self.part_number and self.owner_id:
            # Only parts the owner reads decide: its own and the master catalogue (the operator's,
            # readable by everyone). Another partner's private part is never revealed by a refusal.
            clash = Part.objects.filter(
                manufacturer_id=self.manufacturer_id, part_number__iexact=self.part_number
            ).filter(Q(owner_id=self.owner_id) | Q(owner__kind="operator"))
            if self.pk:
                clash = clash.exclude(pk=self.pk)
            owners = set(clash.values_list("owner_id", flat=True))
            if self.owner_id in owners:
                errors["part_number"] = f"{self.manufacturer} already has a part numbered {self.part_number}."
            elif owners:
                errors["part_number"] = (
                    f"{self.manufacturer} {self.part_number} is in the master catalogue already: "
                    "use that part."
                )
        if errors:
            raise ValidationError(errors)

    def validate_constraints(self, exclude=None):
        # clean() reports a duplicate part number against the field; skip the generic message.
        exclude = set(exclude or ()) | {"part_number"}
        super().validate_constraints(exclude=exclude)

    @property
    def volume_cm3(self) -> Decimal:
        return self.length_cm * self.width_cm * self.height_cm

    @property
    def computed_tpp(self) -> Decimal | None:
        """TPP as given, else the maximum over precisions of dense TOPS × bit length.

        None when unknown — also when the stored figures are not numbers (a row written around
        validation): a list showing the part must not fail, and the classification reads the
        figures itself and names the bad one."""
        if self.tpp is not None:
            return self.tpp
        if not self.dense_tops or not isinstance(self.dense_tops, dict):
            return None
        try:
            products = [_tops(tops) * int(bits) for bits, tops in self.dense_tops.items()]
        except (ArithmeticError, TypeError, ValueError):
            return None
        best = max(products)
        return best if best.is_finite() else None

    @property
    def performance_density(self) -> Decimal | None:
        tpp = self.computed_tpp
        if tpp is None or not self.die_area_mm2:
            return None
        try:
            return (tpp / self.die_area_mm2).quantize(Decimal("0.01"))
        except ArithmeticError:
            return None


def _tops(value) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("a dense TOPS figure is a number, not true/false")
    return Decimal(str(value))


def _attributes_problem(value) -> str | None:
    """Attributes are a flat object: at most 100 names of at most 64 characters, each with a
    number, true/false, a single line of text or a list of those; at most 5,000 characters in all."""
    if not isinstance(value, dict):
        return 'Give other figures as an object of name to value, e.g. {"memory_gb": 80}.'
    if len(value) > ATTRIBUTES_MAX_KEYS:
        return f"At most {ATTRIBUTES_MAX_KEYS} attributes ({len(value)} given)."
    for key, item in value.items():
        if key in RESERVED_ATTRIBUTES:
            field = Part._meta.get_field(key)
            return (
                f"“{key}” is a figure with a field of its own: set it in the {field.name} field "
                f"({field.verbose_name}), not in attributes."
            )
        name = str(key)
        if len(name) > ATTRIBUTE_KEY_MAX_LENGTH:
            return f"{name[:40]!r}…: an attribute name has at most {ATTRIBUTE_KEY_MAX_LENGTH} characters."
        if problem := text_problem(name, "identifier"):
            return f"{name!r} is not an attribute name: {problem}"
        for element in item if isinstance(item, list) else [item]:
            if isinstance(element, dict | list):
                return f"“{key}”: give a number, true/false, text or a list of those, not nested objects."
            if isinstance(element, str) and (problem := text_problem(element, "line")):
                return f"“{key}”: {problem}"
            if isinstance(element, float) and not math.isfinite(element):
                return f"“{key}”: {element} is not a number."
    size = len(json.dumps(value, ensure_ascii=False))
    if size > FREE_TEXT_MAX_LENGTH:
        return f"At most {FREE_TEXT_MAX_LENGTH:,} characters of attributes in all ({size:,} given)."
    return None


def _dense_tops_problem(value) -> str | None:
    if not isinstance(value, dict):
        return 'Give dense TOPS as an object of bit length to figure, e.g. {"8": "1979"}.'
    for bits, tops in value.items():
        if str(bits) not in ("4", "6", "8", "16", "32", "64"):
            return f"{bits!r} is not a bit length (4, 6, 8, 16, 32 or 64)."
        try:
            figure = _tops(tops)
        except (ArithmeticError, TypeError, ValueError):
            return f"{tops!r} at {bits} bits is not a number."
        if not figure.is_finite():
            return f"{tops!r} at {bits} bits is not a number."
        if figure < 0:
            return f"Dense TOPS at {bits} bits must not be negative."
        if figure.as_tuple().exponent < -DENSE_TOPS_DECIMAL_PLACES:
            return f"Dense TOPS at {bits} bits has at most {DENSE_TOPS_DECIMAL_PLACES} decimal places."
        if figure * int(bits) > TPP_MAX:
            return (
                f"Dense TOPS at {bits} bits × {bits} gives a TPP above the largest accepted "
                f"({TPP_MAX:,}); check the unit (TOPS, not OPS)."
            )
    return None


# Digits of a national tariff code: the 6-digit HS subheading plus the country's extension. The US
# Schedule B and HTS both have 10 digits (AES takes either); India's ITC-HS has 8.
TARIFF_CODE_DIGITS = {"US": (10,), "IN": (8,)}
TARIFF_CODE_DIGITS_OTHER = (8, 9, 10)


class UnitOfQuantity(models.TextChoices):
    """The unit a tariff schedule counts a code in, as AES reports it (AESTIR Appendix H)."""

    NUMBER = "NO", "Number (NO)"
    KILOGRAMS = "KG", "Kilograms (KG)"
    NONE = "X", "No quantity (X)"


class PartTariffCode(AuditedModel):
    """A part's national tariff code in one country: its HS code with that country's extension,
    e.g. the 10-digit Schedule B number the EEI declares (US) or the 8-digit ITC-HS code (India)."""

    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="tariff_codes")
    country = CountryField(help_text="Whose tariff: US (Schedule B / HTS, 10 digits), IN (ITC-HS, 8 digits).")
    code = models.CharField(
        max_length=10,
        help_text="The part's 6-digit HS code and the country's extension, digits only (dots and spaces "
        "are ignored), e.g. 8471.50.0150.",
    )
    unit_of_quantity = models.CharField(
        max_length=2,
        choices=UnitOfQuantity.choices,
        default=UnitOfQuantity.NUMBER,
        help_text="The unit the schedule counts this code in; AES reports the quantity in it.",
    )

    identifier_fields = ("code",)

    class Meta:
        ordering = ["part", "country"]
        constraints = [
            models.UniqueConstraint(fields=["part", "country"], name="catalog_tariff_code_one_per_country"),
            models.CheckConstraint(
                condition=Q(code__regex=r"^[0-9]{8,10}$"),
                name="catalog_tariff_code_digits",
                violation_error_message="A national tariff code has 8 to 10 digits.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.country} {self.code}"

    def clean(self) -> None:
        self.code = normalise_hs_code(self.code)
        part = self.part if self.part_id or "part" in self._state.fields_cache else None
        if problem := tariff_code_problem(self.code, self.country, part.hs_code if part else ""):
            raise ValidationError({"code": problem})


def tariff_code_problem(code: str, country: str, hs_code: str) -> str | None:
    """What is wrong with a national tariff code for a part with this HS code, or None."""
    code = normalise_hs_code(code)
    if not code.isdigit():
        return f"A tariff code has digits only (dots and spaces are ignored); {code!r} has others."
    digits = TARIFF_CODE_DIGITS.get(country, TARIFF_CODE_DIGITS_OTHER)
    if len(code) not in digits:
        what = {"US": "A US Schedule B / HTS number", "IN": "An Indian ITC-HS code"}.get(
            country, f"A tariff code of {country}"
        )
        allowed = f"{digits[0]} to {digits[-1]}" if len(digits) > 1 else str(digits[0])
        return f"{what} has {allowed} digits; {code} has {len(code)}."
    hs6 = normalise_hs_code(hs_code)[:6]
    if hs6 and not code.startswith(hs6):
        return f"{code} does not extend the part's HS code {hs6}: a national code starts with its 6 digits."
    return None


class UnitStatus(models.TextChoices):
    """Where a unit is in its life; `apps.catalog.units.unit_transition` alone moves it."""

    EXPECTED = "expected", "Expected"
    RECEIVED = "received", "Received"
    AVAILABLE = "available", "Available"
    ALLOCATED = "allocated", "Allocated"
    PICKED = "picked", "Picked"
    SHIPPED = "shipped", "Shipped"
    QUARANTINED = "quarantined", "Quarantined"


class CustomsStatus(models.TextChoices):
    NONE = "", "Not in a warehouse"
    IN_BOND = "in_bond", "In bond (duty unpaid)"
    DUTY_PAID = "duty_paid", "Duty paid"
    FREE_TRADE_ZONE = "ftz", "Free-trade zone"


class UnitQuerySet(OrgScopedQuerySet):
    pass


class Unit(AuditedModel, TimeStampedModel):
    """One serialised piece of hardware: a part and its serial number, unique per manufacturer.

    Every place that speaks of a serial — a shipment line and its packages, warehouse stock, a
    cluster's installation — refers to this row, so the same GPU server cannot be two
    things at once. The manufacturer is the part's, kept here for the uniqueness constraint."""

    part = models.ForeignKey(Part, on_delete=models.PROTECT, related_name="units")
    manufacturer = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="units")
    serial = models.CharField("serial number", max_length=80)
    owner = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="units",
        help_text="Whose hardware it is (the supplier until it is sold on).",
    )
    status = models.CharField(max_length=16, choices=UnitStatus.choices, default=UnitStatus.EXPECTED)
    customs_status = models.CharField(max_length=12, choices=CustomsStatus.choices, default="", blank=True)
    # Where this box was made: a property of the box, not of its part — the same server model is
    # built in Taiwan and in Mexico, and a consolidation ships both on one line. It is
    # recorded from the inbound shipment line it arrives on (the supplier's declaration), else
    # the part's; blank only for a unit no line or receipt has named yet.
    country_of_origin = CountryField(
        blank=True,
        default="",
        help_text="Where this unit was made, as declared on the inbound line it arrived on.",
    )

    objects = UnitQuerySet.as_manager()

    identifier_fields = ("serial",)

    class Meta:
        ordering = ["manufacturer", "serial"]
        indexes = [
            # The units list (`/api/v1/units/`) is ordered by serial, id: without this index every
            # page sorted every unit (450 ms a page at 100,000 units; bench/bench_stock_list.py).
            models.Index(fields=["serial", "id"], name="catalog_unit_serial_id"),
            # A serial looked up in any case (`?serial=`, the find box) without its manufacturer,
            # which the unique constraint's index needs first: no scan of every unit.
            models.Index(Lower("serial"), name="catalog_unit_serial_lower"),
        ]
        constraints = [
            # "QT0001" and "qt0001" are the same box: never two rows for it.
            models.UniqueConstraint(
                "manufacturer", Lower("serial"), name="catalog_unit_serial_unique_per_maker"
            ),
            models.CheckConstraint(condition=~Q(serial=""), name="catalog_unit_serial_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.part.part_number} {self.serial}"

    @property
    def origin_country(self) -> str:
        """The unit's country of origin, or its part's while no line or receipt has declared one."""
        return self.country_of_origin or self.part.country_of_origin

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        # A partner sees the units it owns; the warehouse adds what is held for it.
        return Q(owner_id=organisation_id)

    def clean(self) -> None:
        self.serial = (self.serial or "").strip()
        if self.part_id and self.manufacturer_id and self.part.manufacturer_id != self.manufacturer_id:
            raise ValidationError({"manufacturer": "A unit's manufacturer is its part's."})
