from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from apps.core.fields import CountryField, CurrencyField
from apps.core.models import AuditedModel, TimeStampedModel
from apps.core.validators import validate_business_date

from .shipments import TransportMode

PRICE = {
    "max_digits": 12,
    "decimal_places": 2,
    "null": True,
    "blank": True,
    "validators": [MinValueValidator(Decimal("0"))],
}
RATE = [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("5"))]
FREIGHT_MODE_CHOICES = [c for c in TransportMode.choices if c[0] != "multimodal"]


class FreightRate(AuditedModel, TimeStampedModel):
    """A price for a lane (origin country → destination country) by one mode and service."""

    origin_country = CountryField()
    destination_country = CountryField()
    mode = models.CharField(max_length=12, choices=FREIGHT_MODE_CHOICES)
    service = models.CharField(max_length=80, help_text="e.g. 'Air general cargo', 'Ocean FCL'.")
    carrier = models.CharField(max_length=120, blank=True)
    currency = CurrencyField(default="USD")
    price_per_kg = models.DecimalField("price per chargeable kg", **PRICE)
    price_20gp = models.DecimalField("price per 20' container", **PRICE)
    price_40gp = models.DecimalField("price per 40' container", **PRICE)
    price_40hc = models.DecimalField("price per 40' high cube", **PRICE)
    price_per_cbm = models.DecimalField("LCL price per m³", **PRICE)
    price_per_tonne = models.DecimalField("LCL price per 1,000 kg", **PRICE)
    minimum_charge = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("0"), validators=[MinValueValidator(Decimal("0"))]
    )
    transit_days = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(365)])
    valid_from = models.DateField(validators=[validate_business_date])
    valid_to = models.DateField(validators=[validate_business_date])

    # What a coordinator keeps, in the API and in the browser alike.
    EDITABLE_FIELDS = [
        "origin_country",
        "destination_country",
        "mode",
        "service",
        "carrier",
        "currency",
        "price_per_kg",
        "price_20gp",
        "price_40gp",
        "price_40hc",
        "price_per_cbm",
        "price_per_tonne",
        "minimum_charge",
        "transit_days",
        "valid_from",
        "valid_to",
    ]

    class Meta:
        ordering = ["origin_country", "destination_country", "mode", "valid_from"]
        indexes = [models.Index(fields=["origin_country", "destination_country", "mode"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__gte=models.F("valid_from")), name="shipments_rate_validity"
            )
        ]

    def __str__(self) -> str:
        lane = f"{self.origin_country}→{self.destination_country}"
        return f"{lane} {self.service} ({self.valid_from}–{self.valid_to})"

    def clean(self) -> None:
        errors = {}
        if self.origin_country and self.origin_country == self.destination_country and self.mode != "road":
            errors["destination_country"] = "An international lane needs two different countries."
        if self.mode in ("air", "road") and self.price_per_kg is None:
            errors["price_per_kg"] = "Air and road rates are priced per chargeable kg."
        if self.mode == "ocean" and not any(
            p is not None for p in (self.price_20gp, self.price_40gp, self.price_40hc, self.price_per_cbm)
        ):
            errors["price_40hc"] = "An ocean rate needs at least one container price or an LCL price per m³."
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            errors["valid_to"] = "The rate ends before it starts."
        if errors:
            raise ValidationError(errors)

    @property
    def container_prices(self) -> dict[str, Decimal]:
        prices = {"20GP": self.price_20gp, "40GP": self.price_40gp, "40HC": self.price_40hc}
        return {code: price for code, price in prices.items() if price is not None}


class HubHandlingRate(AuditedModel, TimeStampedModel):
    """What a consolidation hub charges to receive, hold under bond and re-load the goods passing
    through it: per kg of gross weight, with a minimum per shipment (a consolidation is
    priced as inbound legs + hub handling + main carriage). Operator staff keep these with the
    freight rates; partners see only the total on the customer side (apps/shipments/disclosure.py)."""

    site = models.ForeignKey("shipments.Site", on_delete=models.CASCADE, related_name="handling_rates")
    currency = CurrencyField(default="USD")
    price_per_kg = models.DecimalField(
        "price per gross kg", max_digits=10, decimal_places=4, validators=[MinValueValidator(Decimal("0"))]
    )
    minimum_charge = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("0"), validators=[MinValueValidator(Decimal("0"))]
    )
    valid_from = models.DateField(validators=[validate_business_date])
    valid_to = models.DateField(validators=[validate_business_date])

    class Meta:
        ordering = ["site", "valid_from"]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__gte=models.F("valid_from")), name="shipments_handling_validity"
            )
        ]

    def __str__(self) -> str:
        return f"Handling at {self.site.name}: {self.price_per_kg} {self.currency}/kg from {self.valid_from}"

    def clean(self) -> None:
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValidationError({"valid_to": "The rate ends before it starts."})

    def charge(self, gross_kg: Decimal) -> Decimal:
        """Per kg of gross weight, at least the minimum, to the cent (half up)."""
        amount = max(self.price_per_kg * gross_kg, self.minimum_charge)
        return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


class TariffRate(AuditedModel, TimeStampedModel):
    """An import duty rate for HS codes starting with `hs_prefix`, in one destination country."""

    destination_country = CountryField()
    hs_prefix = models.CharField("HS code prefix", max_length=10)
    duty_rate = models.DecimalField(
        max_digits=6, decimal_places=4, validators=RATE, help_text="As a fraction: 0.10 is 10 %."
    )
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["destination_country", "hs_prefix"]
        constraints = [
            models.UniqueConstraint(
                fields=["destination_country", "hs_prefix"], name="shipments_tariff_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.destination_country} {self.hs_prefix}: {self.duty_rate:%}"

    def clean(self) -> None:
        if not (self.hs_prefix.isdigit() and 2 <= len(self.hs_prefix) <= 10):
            raise ValidationError({"hs_prefix": "Give 2 to 10 digits of the HS code."})


class DestinationTax(AuditedModel, TimeStampedModel):
    """How a destination values imports and taxes them (import VAT/GST, levies on duty, fees)."""

    country = CountryField(unique=True)
    valuation_basis = models.CharField(max_length=3, choices=[("CIF", "CIF"), ("FOB", "FOB")], default="CIF")
    vat_rate = models.DecimalField("import VAT/GST rate", max_digits=6, decimal_places=4, validators=RATE)
    vat_name = models.CharField(max_length=40, default="VAT", help_text="e.g. IGST, GST, VAT.")
    levy_on_duty_rate = models.DecimalField(
        max_digits=6,
        decimal_places=4,
        default=Decimal("0"),
        validators=RATE,
        help_text="e.g. India's Social Welfare Surcharge: 0.10 of duty.",
    )
    brokerage_fee = models.DecimalField(
        max_digits=10, decimal_places=2, default=Decimal("0"), validators=[MinValueValidator(Decimal("0"))]
    )
    handling_fee = models.DecimalField(
        max_digits=10, decimal_places=2, default=Decimal("0"), validators=[MinValueValidator(Decimal("0"))]
    )
    currency = CurrencyField(default="USD", help_text="Currency of the brokerage and handling fees.")
    # Valuation rules: what the customs value counts of freight and insurance (CIF basis only).
    air_freight_cap_of_fob = models.DecimalField(
        "air freight cap (fraction of FOB)",
        max_digits=7,
        decimal_places=5,
        null=True,
        blank=True,
        validators=RATE,
        help_text="Air freight counts in the customs value at most at this fraction of the FOB value "
        "(India: 0.20). Empty: no cap.",
    )
    insurance_of_fob_when_unknown = models.DecimalField(
        "insurance when not known (fraction of FOB)",
        max_digits=7,
        decimal_places=5,
        null=True,
        blank=True,
        validators=RATE,
        help_text="Without a charged premium, insurance counts in the customs value as this fraction of "
        "the FOB value (India: 0.01125). Empty: the insurance estimate counts.",
    )
    valuation_rules_citation = models.CharField(
        max_length=200,
        blank=True,
        help_text="The rule behind the cap and the insurance figure, cited in the landed-cost explanation.",
    )

    class Meta:
        ordering = ["country"]

    def __str__(self) -> str:
        return f"{self.country}: {self.vat_name} {self.vat_rate:%}"


EXCHANGE_RATE_MAX = Decimal("9999999")


class ExchangeRate(AuditedModel, TimeStampedModel):
    """1 `base` = `rate` `quote` on `valid_on`, and where the figure comes from.

    Landed costs convert freight and fees priced in another currency with the latest rate on or
    before the freight plan's date (a rate quoted the other way round is used inverted).
    """

    base = CurrencyField()
    quote = CurrencyField()
    # 15 significant digits at most: SQLite reads decimals back as floating point.
    rate = models.DecimalField(
        max_digits=15,
        decimal_places=8,
        validators=[MinValueValidator(Decimal("0.00000001")), MaxValueValidator(EXCHANGE_RATE_MAX)],
        help_text="Units of the quote currency for one unit of the base currency.",
    )
    valid_on = models.DateField(validators=[validate_business_date])
    source = models.CharField(
        max_length=200,
        help_text="Where the figure comes from, e.g. 'ECB euro foreign exchange reference rates' or "
        "a CBIC customs exchange-rate notification.",
    )

    class Meta:
        ordering = ["base", "quote", "-valid_on"]
        constraints = [
            models.UniqueConstraint(fields=["base", "quote", "valid_on"], name="shipments_fx_unique"),
            models.CheckConstraint(condition=Q(rate__gt=0), name="shipments_fx_rate_positive"),
            models.CheckConstraint(condition=~Q(base=models.F("quote")), name="shipments_fx_two_currencies"),
        ]

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate} {self.quote} ({self.valid_on})"

    def clean(self) -> None:
        if self.base and self.base == self.quote:
            raise ValidationError({"quote": "An exchange rate needs two different currencies."})
