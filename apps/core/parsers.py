"""The JSON parser of the API (kept apart from apps.core.rest: DRF's settings import this module
while `rest_framework.views` is itself being imported)."""

from rest_framework import exceptions, parsers

MAX_JSON_DEPTH = 32


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing documents nested deeper than 32 arrays/objects with a 400.

    Nothing Rackpass accepts nests more than a few levels; a deeper body only costs memory and
    stack, and one nested past Python's recursion limit used to answer 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise exceptions.ParseError(_too_deep()) from exc
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise exceptions.ParseError(_too_deep())
        return data


def _too_deep() -> str:
    return f"JSON parse error - the document is nested deeper than {MAX_JSON_DEPTH} levels."


def json_depth_exceeds(value, limit: int) -> bool:
    """Whether arrays/objects nest deeper than `limit` in `value` (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
