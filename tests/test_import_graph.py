"""The import graph of `apps/`: no loops, imports between apps point down, nothing imports `config`.

Every `.py` under `apps/` is parsed with `ast` (no import runs): module-level and function-level
imports alike, `if TYPE_CHECKING:` ones too, relative imports resolved, and
`importlib.import_module("apps.…")` / `__import__("apps.…")` string literals. `from package import
name` points at the module `package.name` when there is one, else at the package itself.

- **No import loop** between modules, inside an app or between apps. A loop is reported as the
  modules that reach each other and one path round it, with the line of each import. Cut it the
  way the rest were cut: tasks import services and services enqueue by task name
  (`apps.core.tasks_outbox.enqueue_on_commit("app.task", …)`); what two modules both need goes
  into a lower module both import; "something changed, re-check" is an event the higher module
  subscribes to.
- **Imports between apps point down** `LAYERS`, the app order written once here. A lower app that
  needs a higher one's answer asks through a registry the higher app fills in its
  `AppConfig.ready()` (`apps/shipments/hooks.py`, `apps/catalog/hooks.py`,
  `apps/core/demo_steps.py`).
- **Nothing under `apps/` imports `config`**: the project's Celery app and settings sit above
  every app (core finds the Celery app through `celery.current_app`).
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent

# Lowest first; each app may import only the apps before it (INSTALLED_APPS lists them in this
# order, so a lower app's registries exist before the higher apps fill them in `ready()`).
# shipments < warehouse: outbound stock is allocated to shipment lines; compliance reads
# shipments and stock; documents read compliance answers; clusters plans with all of them.
LAYERS = ("core", "accounts", "catalog", "shipments", "warehouse", "compliance", "documents", "clusters")

# Import loops other engineers are cutting while this test was written, exactly as they stand
# (the modules of each loop). This set must become empty: the test fails on a loop not listed
# here and on a listed loop that no longer exists as listed, so the list only shrinks.
BEING_CUT: set[frozenset[str]] = set()

# Upward imports between apps that stay for now, each with why; the same rule: only shrinks.
PENDING: dict[tuple[str, str], str] = {}


class Import:
    """One import statement's target: the importing file and line, and the module as written."""

    def __init__(self, line: int, target: str, written: str, names: tuple[str, ...] = ()):
        self.line, self.target, self.written, self.names = line, target, written, names


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(root: Path, path: Path) -> list[Import]:
    """Every import in the file, relative ones resolved to absolute module names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = module_name(root, path).split(".")
    package = module if path.name == "__init__.py" else module[:-1]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(node.lineno, alias.name, f"import {alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            written = f"from {'.' * node.level}{node.module or ''} import {', '.join(names)}"
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.append(Import(node.lineno, target, written, names))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                found.append(Import(node.lineno, first.value, f"{name}({first.value!r})"))
    return found


class Graph:
    """Modules under `<root>/apps` and, per module, the modules under apps it imports (with where)."""

    def __init__(self, root: Path):
        self.root = root
        self.files = {module_name(root, p): p for p in sorted((root / "apps").rglob("*.py"))}
        self.edges: dict[str, dict[str, str]] = {m: {} for m in self.files}  # m → target → "file:line: …"
        self.config_imports: list[str] = []
        for module, path in self.files.items():
            relative = path.relative_to(root).as_posix()
            for found in imports_in(root, path):
                where = f"{relative}:{found.line}: {found.written}"
                if found.target == "config" or found.target.startswith("config."):
                    self.config_imports.append(where)
                for target in self._targets(found):
                    if target != module:
                        self.edges[module].setdefault(target, where)

    def _targets(self, found: Import) -> set[str]:
        """The modules under apps that the import loads: `from p import m` is `p.m` when that is a
        module, else `p`; a name below any module counts as that module."""
        wanted = [f"{found.target}.{name}" for name in found.names] or [found.target]
        targets = set()
        for name in wanted:
            if name not in self.files:
                name = found.target
            while name and name not in self.files:
                name = name.rpartition(".")[0]
            if name.startswith("apps."):
                targets.add(name)
        return targets

    def loops(self) -> list[list[str]]:
        """The strongly connected components of more than one module (Tarjan, without recursion)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        for start in self.edges:
            if start in index:
                continue
            work = [(start, iter(sorted(self.edges[start])))]
            index[start] = low[start] = len(index)
            stack.append(start)
            on_stack.add(start)
            while work:
                node, children = work[-1]
                child = next(children, None)
                if child is not None:
                    if child not in index:
                        index[child] = low[child] = len(index)
                        stack.append(child)
                        on_stack.add(child)
                        work.append((child, iter(sorted(self.edges[child]))))
                    elif child in on_stack:
                        low[node] = min(low[node], index[child])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
        return sorted(found)

    def path_round(self, loop: list[str]) -> list[str]:
        """One shortest way round the loop from its first module, each step with its import."""
        members, start = set(loop), loop[0]
        came_from: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for child in sorted(self.edges[node]):
                if child not in members or child in came_from:
                    continue
                came_from[child] = node
                if child == start:
                    queue.clear()
                    break
                queue.append(child)
        steps, node = [], start
        while True:
            parent = came_from[node]
            steps.append(f"  {parent} -> {node}   ({self.edges[parent][node]})")
            node = parent
            if node == start:
                return steps[::-1]

    def upward(self, layers: tuple[str, ...]) -> dict[tuple[str, str], list[str]]:
        """(file, imported app's module) → the imports of a higher (or unlisted) app."""
        found: dict[tuple[str, str], list[str]] = {}
        for module, targets in self.edges.items():
            own = _app_of(module)
            for target, where in targets.items():
                other = _app_of(target)
                if own is None or other is None or other == own:
                    continue
                if own in layers and other in layers and layers.index(other) < layers.index(own):
                    continue
                relative = self.files[module].relative_to(self.root).as_posix()
                found.setdefault((relative, target), []).append(
                    f"{where}  ({own} may not import {other}; order: {' → '.join(layers)})"
                )
        return found


def _app_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "apps" else None


def describe(graph: Graph, loop: list[str] | frozenset[str]) -> str:
    loop = sorted(loop)
    return " <-> ".join(loop) + "\n" + "\n".join(graph.path_round(loop))


def test_every_app_has_its_place_in_the_layers():
    on_disk = {p.parent.name for p in (ROOT / "apps").glob("*/apps.py")}
    assert set(LAYERS) == on_disk, "add the new app to LAYERS (tests/test_import_graph.py) at its level"
    installed = [name.split(".", 1)[1] for name in settings.INSTALLED_APPS if name.startswith("apps.")]
    assert installed == list(LAYERS)


def test_no_import_loops():
    graph = Graph(ROOT)
    loops = {frozenset(loop) for loop in graph.loops()}
    new = sorted(sorted(loop) for loop in loops - BEING_CUT)
    assert not new, "import loops (cut them: see this test's docstring):\n" + "\n".join(
        describe(graph, loop) for loop in new
    )
    gone = sorted(sorted(loop) for loop in BEING_CUT - loops)
    assert not gone, (
        "no longer a loop as listed: remove or shrink it in BEING_CUT (this file):\n"
        + "\n".join(" <-> ".join(loop) for loop in gone)
    )


def test_only_the_apps_being_reshaped_keep_loops_for_now():
    allowed = {"warehouse", "clusters", "compliance"}
    assert all(_app_of(module) in allowed for loop in BEING_CUT for module in loop)


def test_imports_between_apps_point_down():
    upward = Graph(ROOT).upward(LAYERS)
    offending = [line for key, lines in upward.items() if key not in PENDING for line in lines]
    assert not offending, "imports that point up (register a hook in the lower app instead):\n" + "\n".join(
        offending
    )
    settled = [f"{path}: {module}" for path, module in PENDING if (path, module) not in upward]
    assert not settled, "no longer imported: remove from PENDING (this file):\n" + "\n".join(settled)


def test_no_app_imports_config():
    found = Graph(ROOT).config_imports
    assert not found, "apps/ imports config (the project sits above every app):\n" + "\n".join(found)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {"apps/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """Function-level, relative, `from apps import …`, `from package import module` and
    import_module all count; a name imported from a module counts as that module."""
    root = _tree(
        tmp_path,
        {
            "apps/catalog/__init__.py": "",
            "apps/catalog/models.py": "",
            "apps/catalog/sub/__init__.py": "",
            "apps/catalog/sub/mod.py": (
                "from ...shipments import models\n"
                "def f():\n"
                "    from apps import compliance\n"
                "    import apps.documents.services\n"
                "    importlib.import_module('apps.shipments.demo')\n"
                "from ..models import Part\n"
                "from apps.core.fields import X\n"
                "from config.celery import app\n"
            ),
            "apps/shipments/__init__.py": "",
            "apps/shipments/models.py": "",
            "apps/shipments/demo.py": "",
            "apps/compliance/__init__.py": "",
            "apps/documents/__init__.py": "",
            "apps/documents/services.py": "",
            "apps/core/__init__.py": "",
            "apps/core/fields.py": "",
        },
    )
    graph = Graph(root)
    assert sorted(graph.edges["apps.catalog.sub.mod"]) == [
        "apps.catalog.models",
        "apps.compliance",
        "apps.core.fields",
        "apps.documents.services",
        "apps.shipments.demo",
        "apps.shipments.models",
    ]
    assert graph.config_imports == ["apps/catalog/sub/mod.py:8: from config.celery import app"]
    assert sorted(graph.upward(LAYERS)) == [
        ("apps/catalog/sub/mod.py", "apps.compliance"),
        ("apps/catalog/sub/mod.py", "apps.documents.services"),
        ("apps/catalog/sub/mod.py", "apps.shipments.demo"),
        ("apps/catalog/sub/mod.py", "apps.shipments.models"),
    ]


def test_a_loop_through_a_function_level_import_is_found_and_shown(tmp_path):
    root = _tree(
        tmp_path,
        {
            "apps/documents/__init__.py": "",
            "apps/documents/services.py": "from . import models\ndef start():\n    from .tasks import run\n",
            "apps/documents/tasks.py": "from apps.documents.services import start\n",
            "apps/documents/models.py": "",
        },
    )
    graph = Graph(root)
    assert graph.loops() == [["apps.documents.services", "apps.documents.tasks"]]
    assert graph.path_round(graph.loops()[0]) == [
        "  apps.documents.services -> apps.documents.tasks   "
        "(apps/documents/services.py:3: from .tasks import run)",
        "  apps.documents.tasks -> apps.documents.services   "
        "(apps/documents/tasks.py:1: from apps.documents.services import start)",
    ]
