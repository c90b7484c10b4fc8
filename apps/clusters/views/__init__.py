"""The clusters app's browser pages, one module per subject.

- `designs`: the designs list, the design form and page, a sizing run, two runs compared, what-if.
- `boms`: a bill of materials version, its lines, issuing, CSV and PDF.
- `summary`: the design page's compliance-summary and coverage panels.
- `plan`: the design page's shipment-plan and own-or-rent panels.
- `panels`: how those panels register with the design page.
"""
