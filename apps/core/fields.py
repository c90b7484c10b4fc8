"""Model fields shared by every app: countries, currencies, money."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
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


MONEY_MAX_DIGITS, MONEY_DECIMAL_PLACES = 16, 2
# The largest amount Rackpass accepts: 9,999,999,999,999.99 (ten trillion less a cent; a rack of
# GPUs priced in Iranian rials is about 1e11). The columns hold 16 digits, but SQLite stores
# decimals as floating point and reads back 15 significant digits, so a larger amount would be
# saved and then fail every read of its row (and of every list showing it). A line's value
# (quantity × unit value) is held to the same bound, so a licence drawdown's (16, 2) value fits.
MONEY_MAX = Decimal("9999999999999.99")


class MoneyField(models.DecimalField):
    """A non-negative money amount; the currency lives in a sibling CurrencyField."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_digits", MONEY_MAX_DIGITS)
        kwargs.setdefault("decimal_places", MONEY_DECIMAL_PLACES)
        kwargs.setdefault("validators", [MinValueValidator(Decimal("0")), MaxValueValidator(MONEY_MAX)])
        super().__init__(*args, **kwargs)
