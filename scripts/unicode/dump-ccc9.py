"""Prints the code points with Canonical_Combining_Class 9 (Virama) as a JSON object.

Run by strict-data.mjs with PYTHONPATH=scripts/unicode/pydeps (pinned unicodedata2).
"""
import json
import sys

import unicodedata2

json.dump(
    {
        "unidata_version": unicodedata2.unidata_version,
        "ccc9": [cp for cp in range(0x110000) if unicodedata2.combining(chr(cp)) == 9],
    },
    sys.stdout,
)
