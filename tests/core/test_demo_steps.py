"""The demo-step registry (issue 13): each app registers its step; `load_demo` imports none."""

import pytest

from apps.core import demo_steps


def test_the_apps_steps_run_in_their_order():
    assert [step.name for step in demo_steps.demo_steps()] == [
        "accounts",
        "catalog",
        "compliance reference",  # registered after shipments, but ordered before it
        "shipments",
        "warehouse",
        "compliance shipments",
        "clusters",
    ]


def test_after_and_before_order_the_steps_and_registration_order_breaks_ties(monkeypatch):
    monkeypatch.setattr(demo_steps, "_steps", {})
    ran = []

    def step(name):
        return lambda **options: ran.append((name, options)) or {name: 1}

    demo_steps.register_demo_step("low", step("low"))
    demo_steps.register_demo_step("middle", step("middle"), after=["low"])
    demo_steps.register_demo_step("high", step("high"), after=["middle"])
    demo_steps.register_demo_step(
        "high reference", step("high reference"), before=["middle"], report=lambda **o: ["ready"]
    )
    counts, lines = demo_steps.load_demo_steps(password="x")
    assert list(counts) == ["low", "high reference", "middle", "high"]
    assert ran[0] == ("low", {"password": "x"}) and lines == ["ready"]


def test_a_loop_or_an_unknown_step_is_refused(monkeypatch):
    monkeypatch.setattr(demo_steps, "_steps", {})
    demo_steps.register_demo_step("a", dict, after=["b"])
    demo_steps.register_demo_step("b", dict, after=["a"])
    with pytest.raises(ValueError, match="wait on each other"):
        demo_steps.demo_steps()
    demo_steps.register_demo_step("b", dict, after=["nobody"])
    with pytest.raises(LookupError, match="nobody"):
        demo_steps.demo_steps()
