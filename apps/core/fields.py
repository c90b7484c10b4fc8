"""Model fields shared by every app: countries, currencies, money."""

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models

from .countries import COUNTRY_CHOICES, CURRENCY_CHOICES, validate_country, validate_currency


class CountryField(models.CharField):
    """ISO 3166-1 alpha-2 country code."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", 2)
        kwargs.setdefault("choices", COUNTRY_CHOICES)
        kwargs.setdefault("validators", [validate_country])
        super().__init__(*args, **kwargs)


class CurrencyField(models.CharField):
    """ISO 4217 currency code."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", 3)
        kwargs.setdefault("choices", CURRENCY_CHOICES)
        kwargs.setdefault("validators", [validate_currency])
        super().__init__(*args, **kwargs)


class MoneyField(models.DecimalField):
    """A non-negative money amount; the currency lives in a sibling CurrencyField."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_digits", 16)
        kwargs.setdefault("decimal_places", 2)
        kwargs.setdefault("validators", [MinValueValidator(Decimal("0"))])
        super().__init__(*args, **kwargs)
