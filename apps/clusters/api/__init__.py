"""The clusters API under `/api/v1/clusters/`, one module per subject, each with its serializers
and views, and its OpenAPI examples beside it (`<subject>_schema.py`):

- `designs`: designs, their sizing runs and bills of materials (serializers in `serializers.py`).
- `summary`: a design's compliance summary and coverage.
- `plan`: a design's shipment plan and own or rent.

The routes are registered in `config/api_urls.py`.
"""
