"""Browser pages of the warehouse, one module per subject: `stock` (on hand, units, the ledger,
the dashboard's tiles and the shipment page's links), `locations` (and their counts), `flow`
(receive, move, allocate, pick, ship), `receipts` (receiving against a notice, discrepancies,
packing) and `imports` (the serial upload). `apps/warehouse/urls.py` names them all."""
