"""One Idempotency-Key, one request: the same instant written as `…Z`, `….000Z` or `+00:00` is the
same request, so the replay answers with the first result instead of a 422."""

from apps.shipments.models import TrackingEvent


def test_the_same_instant_written_differently_is_replayed(make_shipment, coordinator, api_as):
    shipment = make_shipment()
    api = api_as(coordinator)
    url = f"/api/v1/shipments/{shipment.reference}/events/"

    def post(occurred_at, key="evt-instant"):
        body = {"code": "departed", "occurred_at": occurred_at, "remarks": "CI 5701"}
        return api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)

    first = post("2026-12-01T10:00:00Z")
    assert first.status_code == 201, first.content
    for same in ("2026-12-01T10:00:00.000Z", "2026-12-01T10:00:00+00:00", "2026-12-01T15:30:00+05:30"):
        again = post(same)
        assert again.status_code == 201, (same, again.content)
        assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert TrackingEvent.objects.filter(shipment=shipment).count() == 1
    # Another instant under the same key is another request: refused.
    assert post("2026-12-01T10:00:01Z").status_code == 422
