"""A warehouse flow page or API action without its work is refused when its class is defined."""

import pytest

from apps.warehouse.api.stock import _StockActionViewSet
from apps.warehouse.views.flow import _FlowView


def test_a_flow_page_without_run_is_refused_at_definition():
    with pytest.raises(TypeError, match="must define run"):
        type("Unfinished", (_FlowView,), {})


def test_an_api_action_without_perform_is_refused_at_definition():
    with pytest.raises(TypeError, match="must define perform"):
        type("Unfinished", (_StockActionViewSet,), {})
