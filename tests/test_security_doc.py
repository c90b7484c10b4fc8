"""docs/security.md names the test behind each promise: every test it names exists."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)?((?:::\w+)+)?(?:\[[^\]]*\])?`")


def _defined(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def test_every_test_named_in_the_security_doc_exists():
    text = (ROOT / "docs" / "security.md").read_text()
    missing, current, checked = [], None, 0
    for match in REFERENCE.finditer(text):
        path, names = match.group(1), match.group(2)
        if path:
            current = path
            if not (ROOT / path).exists():
                missing.append(path)
                continue
        if not names or current is None or not (ROOT / current).exists():
            continue
        defined = _defined(ROOT / current)
        for name in names.strip(":").split("::"):
            checked += 1
            if name not in defined:
                missing.append(f"{current}::{name}")
    assert checked > 50
    assert not missing, f"docs/security.md names tests that do not exist: {missing}"
