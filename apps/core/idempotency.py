"""`Idempotency-Key` for POST endpoints: a repeated key returns the first result and creates nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.dateparse import parse_datetime
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from .models import IdempotencyRecord

HEADER = "Idempotency-Key"


# A date and time with an offset or Z, as clients write instants ("…Z", "….000Z", "+05:30").
_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")


def _normalised(value: Any) -> Any:
    """The body as its meaning: an instant, however written, in one UTC form; so a client retrying
    with "….000Z" for "…Z" sends the same request."""
    if isinstance(value, dict):
        return {key: _normalised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalised(item) for item in value]
    if isinstance(value, str) and _INSTANT.match(value):
        parsed = parse_datetime(value)
        if parsed is not None and parsed.tzinfo is not None:
            return parsed.astimezone(dt.UTC).isoformat()
    return value


def _fingerprint(request: Request) -> str:
    body = json.dumps(_normalised(request.data), sort_keys=True, default=str)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def idempotent(request: Request, handler: Callable[[], Response]) -> Response:
    """Run `handler` once per (user, key). Without the header the request simply runs.

    The handler's writes and the stored response commit together, so a crash in between cannot
    leave an effect without its record (or a record without its effect).
    """
    key = request.headers.get(HEADER, "").strip()
    if not key:
        return handler()
    if len(key) > 255:
        return Response({HEADER: ["At most 255 characters."]}, status=status.HTTP_400_BAD_REQUEST)
    fingerprint = _fingerprint(request)
    existing = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
    if existing is not None:
        return _replay(existing, fingerprint)
    try:
        with transaction.atomic():
            response = handler()
            if response.status_code >= 500:
                return response
            IdempotencyRecord.objects.create(
                user=request.user,
                key=key,
                method=request.method,
                path=request.path[:500],
                request_fingerprint=fingerprint,
                response_status=response.status_code,
                response_body=json.loads(json.dumps(response.data, default=str)),
            )
            return response
    except IntegrityError:
        # A concurrent request with the same key won the race: answer with its result.
        winner = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
        if winner is None:
            raise
        return _replay(winner, fingerprint)


def _replay(record: IdempotencyRecord, fingerprint: str) -> Response:
    if record.request_fingerprint != fingerprint:
        return Response(
            {HEADER: ["This key was already used with a different request; use a new key."]},
            status=status.HTTP_422_UNPROCESSABLE_ENTITY,
        )
    response = Response(record.response_body, status=record.response_status)
    response["Idempotent-Replayed"] = "true"
    return response
