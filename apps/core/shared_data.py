"""Finds the reference data shared beside the project (the real screening list, EAR country data).

The data lives in a `shared/` folder that is not part of the repository: beside the checkout on a
developer's machine and in CI, but a checkout can sit one or more folders deeper (a worktree, a
clone inside a work folder). `shared_file` looks in `$RACKPASS_SHARED_DIR` first, then in a
`shared/` folder inside the checkout or beside any folder above it, and takes the newest dated
edition when the exact file name is not there ("consolidated-*.json" for
"csl/consolidated-2026-07-31.json"). No Django import: benchmarks and tests use it as they are.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")


def shared_dirs() -> list[Path]:
    """Every candidate `shared/` folder, in the order they are tried."""
    found: list[Path] = []
    configured = os.environ.get("RACKPASS_SHARED_DIR")
    if configured:
        found.append(Path(configured).expanduser())
    for folder in (ROOT, *ROOT.parents):
        candidate = folder / "shared"
        if candidate not in found:
            found.append(candidate)
    return found


def shared_file(relative: str) -> Path | None:
    """The file at `relative` under the first `shared/` folder that has it (or a newer edition of
    it: the same name with another date), else None."""
    wanted = Path(relative)
    pattern = _DATED.sub("*", wanted.name)
    for folder in shared_dirs():
        exact = folder / wanted
        if exact.is_file():
            return exact
        if pattern != wanted.name and (folder / wanted.parent).is_dir():
            editions = sorted((folder / wanted.parent).glob(pattern))
            if editions:
                return editions[-1]
    return None


def shared_path(relative: str) -> Path:
    """`shared_file(relative)`, or where it was expected beside the checkout when it is nowhere
    (a path that does not exist: callers skip with a note naming it)."""
    return shared_file(relative) or ROOT.parent / "shared" / relative
