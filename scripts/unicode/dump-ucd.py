"""Prints, as one JSON object, what the strict profile takes from unicodedata2: its
Unicode version, the code points with Canonical_Combining_Class 9 (Virama) and every
Decomposition_Mapping (as [code point, tag or null, [code points]]).

Run by strict-data.mjs with PYTHONPATH set to one of the pinned pip targets
(scripts/unicode/pydeps or pydeps-previous).
"""
import json
import sys

import unicodedata2

decompositions = []
for cp in range(0x110000):
    d = unicodedata2.decomposition(chr(cp))
    if not d:
        continue
    fields = d.split()
    tag = fields[0][1:-1] if fields[0].startswith("<") else None
    if tag is not None:
        fields = fields[1:]
    decompositions.append([cp, tag, [int(f, 16) for f in fields]])

json.dump(
    {
        "unidata_version": unicodedata2.unidata_version,
        "ccc9": [cp for cp in range(0x110000) if unicodedata2.combining(chr(cp)) == 9],
        "decompositions": decompositions,
    },
    sys.stdout,
)
