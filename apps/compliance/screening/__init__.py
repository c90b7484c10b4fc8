"""Restricted-party screening: normalise names, match them against list entries, parse lists.

Pure Python (no Django imports). `ScreeningIndex(entries).search(names, country=...)` gives
`Hit`s; `parsers` turns the CSL JSON/CSV and OpenSanctions JSON lines into `ListEntry`s.
Screening compares names only; see `OWNERSHIP_NOTE`.
"""

from .matcher import (
    HIGH_PRECISION,
    HIGH_RECALL,
    OWNERSHIP_NOTE,
    FullScan,
    Hit,
    ListEntry,
    ScreeningIndex,
    naive_search,
    score_names,
)
from .normalise import normalise, tokens

__all__ = [
    "HIGH_PRECISION",
    "HIGH_RECALL",
    "OWNERSHIP_NOTE",
    "FullScan",
    "Hit",
    "ListEntry",
    "ScreeningIndex",
    "naive_search",
    "normalise",
    "score_names",
    "tokens",
]
