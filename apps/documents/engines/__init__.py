"""Documents' pure rules, with no Django import: `eei` (when an EEI filing is mandatory, and its
AES commodity lines)."""
