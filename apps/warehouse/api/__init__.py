"""The warehouse's REST API, one module per subject: `stock` (units, locations, lots, the ledger,
on-hand and the floor's actions), `receipts` (receiving against a notice, discrepancies, packing)
and `imports` (serial imports); their serializers in `serializers/`, filters in `filters.py`, the
OpenAPI annotations in `schema/` (per subject). `config/api_urls.py` routes them."""
