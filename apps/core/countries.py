"""Countries and currencies from ISO 3166-1 / ISO 4217 (pycountry), as Django choices and validators."""

from functools import cache

import pycountry
from django.core.exceptions import ValidationError


@cache
def _countries() -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            ((c.alpha_2, getattr(c, "common_name", c.name)) for c in pycountry.countries), key=lambda c: c[1]
        )
    )


# ISO 4217 codes that are not money a price or a customs value is stated in: fund codes (BOV, CHE,
# CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals (XAG, XAU, XPD, XPT), units of account
# (XAD, XBA–XBD, XDR, XSU, XUA), the testing code XTS and XXX, "no currency".
NOT_TRADE_CURRENCIES = frozenset(
    {
        *("BOV", "CHE", "CHW", "CLF", "COU", "MXV", "USN", "UYI", "UYW"),
        *("XAG", "XAU", "XPD", "XPT"),
        *("XAD", "XBA", "XBB", "XBC", "XBD", "XDR", "XSU", "XUA"),
        *("XTS", "XXX"),
    }
)


@cache
def _currencies() -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            (c.alpha_3, f"{c.alpha_3} — {c.name}")
            for c in pycountry.currencies
            if c.alpha_3 not in NOT_TRADE_CURRENCIES
        )
    )


def COUNTRY_CHOICES() -> tuple[tuple[str, str], ...]:  # noqa: N802 - used as a Django choices callable
    return _countries()


def CURRENCY_CHOICES() -> tuple[tuple[str, str], ...]:  # noqa: N802
    return _currencies()


def country_name(code: str) -> str:
    return dict(_countries()).get(code, code)


def validate_country(value: str) -> None:
    if value not in dict(_countries()):
        raise ValidationError(
            "%(value)s is not an ISO 3166-1 alpha-2 country code (e.g. IN, US, TW).",
            code="invalid_country",
            params={"value": value},
        )


def validate_currency(value: str) -> None:
    if value not in dict(_currencies()):
        raise ValidationError(
            "%(value)s is not the ISO 4217 code of a currency goods are priced in (e.g. USD, EUR, INR).",
            code="invalid_currency",
            params={"value": value},
        )
