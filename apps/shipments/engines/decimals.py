"""Money and numbers as the engines take them: a finite Decimal from a Decimal, an int or a
numeric string (floats are refused on purpose: 0.1 + 0.2 is not money), and amounts rounded to
cents half up. Freight and landed cost both read their inputs through here. No Django imports."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")


def as_decimal(value: object, field_name: str, owner: str = "") -> Decimal:
    """A finite Decimal from a Decimal, int or numeric string; floats are refused on purpose.
    Errors name the field (and `owner`, where the value belongs to a rate or a piece)."""
    where = f"{owner}: " if owner else ""
    if isinstance(value, bool | float):
        raise TypeError(f"{where}{field_name} must be a Decimal, not {type(value).__name__} ({value!r})")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int | str):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"{where}{field_name} is not a number: {value!r}") from None
    else:
        raise TypeError(f"{where}{field_name} must be a Decimal, not {type(value).__name__}")
    if not result.is_finite():
        raise ValueError(f"{where}{field_name} must be a finite number, not {value!r}")
    return result


def money(value: Decimal) -> Decimal:
    """Round to cents, half up."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)
