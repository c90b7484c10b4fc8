"""Imports between apps point one way, down (issue 13; ../shared/reference/style.md).

Every `.py` under `apps/` is parsed (no import runs): module-level and function-level imports,
`if TYPE_CHECKING:` ones too, relative imports resolved, and `importlib.import_module("apps.…")` /
`__import__("apps.…")` string literals. An import of another app must go to an app strictly
below the importing one in `LAYERS`. A lower app that needs a higher one's answer asks through a
registry the higher app fills in its `AppConfig.ready()` (`apps/shipments/hooks.py`,
`apps/catalog/hooks.py`, `apps/core/demo_steps.py`).

Migrations are checked like the rest: they only import their own app and `core`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
APPS_DIR = ROOT / "apps"

# Lowest first. Each app may import only the apps before it. Future apps (warehouse, clusters)
# go above shipments, since both hook into the shipment flow.
LAYERS = ("core", "accounts", "catalog", "shipments", "warehouse", "compliance", "documents", "clusters")

# Upward imports that stay for now, each with why. Only files other engineers were editing
# when the test was written (views); the test fails when one of them is gone, so the list shrinks.
PENDING: dict[tuple[str, str], str] = {}


def _module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, imported module, the import as written) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module[:-1]
    found: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((node.lineno, alias.name, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            names = ", ".join(alias.name for alias in node.names)
            written = f"from {'.' * node.level}{node.module or ''} import {names}"
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target == "apps":  # `from apps import shipments`
                found.extend((node.lineno, f"apps.{a.name}", written) for a in node.names)
            else:
                found.append((node.lineno, target, written))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                found.append((node.lineno, first.value, f"{name}({first.value!r})"))
    return found


def _app_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "apps" else None


def _upward_imports() -> dict[tuple[str, str], list[str]]:
    """(file, imported module) → ["file:line: import …", …] for every import that is not down."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(APPS_DIR.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        own = _app_of(".".join(_module_of(path)))
        if own is None:  # apps/__init__.py
            continue
        for line, target, written in _imports(path):
            other = _app_of(target)
            if other is None or other == own:
                continue
            if other in LAYERS and own in LAYERS and LAYERS.index(other) < LAYERS.index(own):
                continue
            found.setdefault((relative, target), []).append(
                f"{relative}:{line}: {written}  ({own} may not import {other}; order: {' → '.join(LAYERS)})"
            )
    return found


def test_every_app_has_its_place_in_the_layers():
    on_disk = {p.parent.name for p in APPS_DIR.glob("*/apps.py")}
    assert set(LAYERS) == on_disk, "add the new app to LAYERS (tests/test_layering.py) at its level"
    # ready() runs in INSTALLED_APPS order: lower apps first, so their registries exist before
    # the higher apps fill them (and demo steps keep that order where they do not say otherwise).
    installed = [name.split(".", 1)[1] for name in settings.INSTALLED_APPS if name.startswith("apps.")]
    assert installed == list(LAYERS)


def test_imports_between_apps_point_down():
    upward = _upward_imports()
    offending = [line for key, lines in upward.items() if key not in PENDING for line in lines]
    assert not offending, "imports that point up (register a hook in the lower app instead):\n" + "\n".join(
        offending
    )
    settled = [f"{path}: {module}" for path, module in PENDING if (path, module) not in upward]
    assert not settled, "no longer imported: remove from PENDING in tests/test_layering.py:\n" + "\n".join(
        settled
    )


def test_the_checker_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The parser itself: function-level, relative, `from apps import …` and import_module."""
    fake_root = tmp_path
    target_file = fake_root / "apps" / "catalog" / "sub" / "mod.py"
    target_file.parent.mkdir(parents=True)
    target_file.write_text(
        "from ...shipments import models\n"
        "def f():\n"
        "    from apps import compliance\n"
        "    import apps.documents.services\n"
        "    importlib.import_module('apps.shipments.demo')\n"
        "from ..models import Part\n"
        "from apps.core.fields import X\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    assert sorted(target for _line, target, _written in _imports(target_file)) == [
        "apps.catalog.models",
        "apps.compliance",
        "apps.core.fields",
        "apps.documents.services",
        "apps.shipments",
        "apps.shipments.demo",
    ]
