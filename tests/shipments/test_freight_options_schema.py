"""The freight-options operation documents every answer it gives: 400 for a lane without rates,
409 for a rate table that mixes currencies or lanes, 422 for a landed cost that cannot be added up
(or lines missing figures), each with the body it sends."""

import functools

from drf_spectacular.generators import SchemaGenerator

PATH = "/api/v1/shipments/{reference}/freight-options/"


@functools.cache
def operation() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)["paths"][PATH]["get"]


def test_the_lane_without_rates_answer_is_documented():
    answer = operation()["responses"]["400"]
    assert "rate" in answer["description"].lower() and "lane" in answer["description"]
    assert answer["content"]["application/json"]["schema"]


def test_the_conflict_and_unprocessable_answers_are_documented():
    responses = operation()["responses"]
    assert "currenc" in responses["409"]["description"]
    assert "Idempotency-Key" not in responses["422"]["description"]
    assert "landed cost" in responses["422"]["description"]
