"""Serializers of the warehouse API, one module per subject: `stock` (units, locations, lots, the
ledger, on-hand and the bodies of the floor's actions) and `receipts` (receiving against a notice,
discrepancies and packing). The serial import's are beside its views in `api/imports.py`."""
