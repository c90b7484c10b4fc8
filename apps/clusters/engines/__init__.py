"""The cluster engines: pure Python, no Django.

- `types`: the inputs (`DesignInputs` …), the result (`SizingResult` with `as_dict`/`from_dict`)
  and `SizingInputError`.
- `sizing`: the cluster sizing, split by subject (systems, networks, racks, cooling, power,
  checkpointing); `sizing.size(inputs)` sizes a design, `sizing.what_if(inputs, gpu_counts)` gives
  the what-if rows.
- `fabric`, `checkpoint`: the fat-tree and checkpoint-interval formulas the sizing uses.
- `defaults`: figures a form may offer ([V]/[P]/[E] marked); `examples`: example designs.
- `economics`: own or rent, month by month; `shipment_plan`: how a design's parts ship.
"""
