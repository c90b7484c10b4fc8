"""A freight option's stable name, so a person (or a partner's system) can book the option it was
shown: the same rate on the same lane keeps its name whatever today's price or dates.

An option is one rate's way to move the goods: its mode, carrier and service on the lane from the
origin's country to the destination's. Those four say which rate it is (the rate table holds one
valid rate per mode, carrier and service on a lane on a day), so they are its name:
``air|Cathay Cargo|Air express|TW-IN`` (an empty carrier stays empty: ``ocean||Ocean LCL|TW-IN``).
"""

from __future__ import annotations

SEPARATOR = "|"


def option_id(*, mode: str, carrier: str, service: str, origin_country: str, destination_country: str) -> str:
    """The option's name: mode, carrier, service and lane, joined by `SEPARATOR` (which the parts
    never hold: a carrier or service naming it has the character replaced by "/")."""
    parts = (mode, carrier or "", service or "", f"{origin_country}-{destination_country}")
    return SEPARATOR.join(part.replace(SEPARATOR, "/") for part in parts)
