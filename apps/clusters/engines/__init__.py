"""The cluster sizing engine (issue 14): pure Python, no Django.

- `types`: the inputs (`DesignInputs` …), the result (`SizingResult` with `as_dict`/`from_dict`)
  and `SizingInputError`.
- `sizing.size(inputs)`: the whole sizing; `sizing.what_if(inputs, gpu_counts)`: the what-if rows.
- `fabric`, `checkpoint`: the fat-tree and checkpoint-interval formulas.
- `defaults`: figures a form may offer ([V]/[P]/[E] marked); `examples`: example designs.
"""
