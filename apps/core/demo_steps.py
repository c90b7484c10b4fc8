"""The demo data, one step per app, without `core` importing the apps.

`core` sits below every app, so `load_demo` cannot import their demo modules. Each app registers
its steps in its `AppConfig.ready()`: a name, the callable that loads them and which steps it
needs first (`after`) or must come before (`before`), naming only steps of its own app or of
apps below it (compliance's reference data goes `before` the shipments, whose approvals read
it). `load_demo` runs them in that order; among steps free to run, the first registered goes
first, i.e. INSTALLED_APPS order.

A step is called with the command's options as keywords (today `password`) and takes those it
needs (`**_options` for the rest); it returns `{what: number made}` and makes nothing twice. A
step may also give `logins`: lines the command prints after loading (the demo users).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Load = Callable[..., dict[str, int]]
Report = Callable[..., list[str]]


@dataclass(frozen=True)
class DemoStep:
    name: str
    load: Load
    after: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    report: Report | None = None


_steps: dict[str, DemoStep] = {}


def register_demo_step(
    name: str,
    load: Load,
    *,
    after: Iterable[str] = (),
    before: Iterable[str] = (),
    report: Report | None = None,
) -> None:
    """Register (or register again, replacing) the step `name`."""
    _steps[name] = DemoStep(name, load, tuple(after), tuple(before), report)


def demo_steps() -> list[DemoStep]:
    """The registered steps in an order that keeps every `after` and `before`."""
    needs: dict[str, set[str]] = {name: set() for name in _steps}
    for step in _steps.values():
        for other in (*step.after, *step.before):
            if other not in _steps:
                raise LookupError(
                    f"Demo step {step.name!r} is ordered against {other!r}, which nobody registered."
                )
        needs[step.name].update(step.after)
        for later in step.before:
            needs[later].add(step.name)
    ordered: list[DemoStep] = []
    done: set[str] = set()
    while len(ordered) < len(_steps):
        ready = next((s for s in _steps.values() if s.name not in done and needs[s.name] <= done), None)
        if ready is None:
            waiting = sorted(set(_steps) - done)
            raise ValueError(f"Demo steps wait on each other: {', '.join(waiting)}")
        ordered.append(ready)
        done.add(ready.name)
    return ordered


def load_demo_steps(**options: Any) -> tuple[dict[str, int], list[str]]:
    """Run every step in order: the numbers made (in step order) and the lines to print."""
    steps = demo_steps()
    counts: dict[str, int] = {}
    for step in steps:
        counts |= step.load(**options)
    lines = [line for step in steps if step.report for line in step.report(**options)]
    return counts, lines
