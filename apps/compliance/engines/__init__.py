"""Pure export-control engines: plain Python with typed dataclasses in and out, no Django imports.

- ``countries``: EAR Country Groups and the Commerce Country Chart, loaded from the dated JSON
  files in ``apps/compliance/data/ear/``.
- ``classification``: an ECCN from a part's published figures (TPP, PD, encryption, category),
  saying which figures it used and which were missing.
- ``determination``: NLR / licence exception / licence required / prohibited for an ECCN, a
  destination and an end user, listing every rule that fired.

Django code adapts catalogue rows and shipment parties to these inputs. Not legal advice: every
rule carries its citation and the engines carry a rule version, so a rule change is a visible
change.
"""
