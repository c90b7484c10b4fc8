"""The cluster sizing engine: `size(inputs) -> SizingResult`, in closed form.

No Django imports and no per-GPU or per-rack objects: every count is arithmetic on a handful of
integers, so sizing 131,072 GPUs costs what sizing 8 does. Every output is a `Figure` whose
formula carries the numbers it was worked out from. Bad inputs are refused all at once with one
`SizingInputError` naming each bad input by its dotted path; nothing is defaulted silently.
Sources: ../shared/reference/sizing.md; each module's docstring states its conventions.

Callers import `size`, `what_if`, `validate` and `num` from here. The work is split by subject,
each module importing only the ones below it (`common` at the bottom):

- `validation`: every input checked; one SizingInputError naming each bad one.
- `systems`: systems, scalable units and storage appliances.
- `networks`: the compute and storage fabrics and the in-band and out-of-band management
  networks: switches per tier, cables, transceivers and their bill of materials.
- `cooling`: heat by liquid and by air, and the CDUs (in-rack per rack, in-row per row).
- `racks`: what each rack holds (systems with their in-rack CDUs, shared network racks, storage
  racks), PDUs, rows and the heaviest rack.
- `power`: IT and facility load by component, and the densest rack.
- `checkpointing`: checkpoint write bandwidth and time, and the best interval.
- `sizer`: the steps in order (`size`) and the design at other GPU counts (`what_if`).
"""

from __future__ import annotations

from .common import num
from .sizer import size, what_if
from .validation import validate

__all__ = ["num", "size", "validate", "what_if"]
