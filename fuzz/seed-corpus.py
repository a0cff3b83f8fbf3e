#!/usr/bin/env python3
"""Writes the committed seed corpus from the conformance vectors.

Each target gets the vectors' inputs in its own framing (a leading cap byte, or
chunk-size bytes). Run from anywhere: python3 fuzz/seed-corpus.py
"""
import hashlib
import json
import pathlib

here = pathlib.Path(__file__).resolve().parent
vectors = here.parent / "tests" / "conformance" / "reference-vectors.jsonl"

by_fn = {}
for line in vectors.read_text(encoding="utf-8").split("\n"):
    if not line.strip():
        continue
    v = json.loads(line)
    by_fn.setdefault(v["fn"], []).append(v["args"])

def texts(*fns):
    for fn in fns:
        for args in by_fn.get(fn, []):
            if isinstance(args[0], str):
                yield args[0].encode("utf-8")

def write(target, seeds):
    d = here / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        if len(seed) > 16 * 1024:
            continue  # long vectors add size, not coverage
        (d / hashlib.sha1(seed).hexdigest()).write_bytes(seed)

prose = list(texts("sanitizeProse", "stripDangerousInvisibles"))
write("sanitize_prose", [bytes([n % 256]) + t for n, t in zip(range(7, 10_000, 37), prose)])
write("strip", prose)
write("truncate", [bytes([n % 256]) + t for n, t in zip(range(1, 10_000, 13), texts("truncateToBytes"))])
write("machine_values", list(texts("assertMachineToken", "assertNoControlChars", "assertSafeDescription", "assertSafeGlob")))
write("forgery", list(texts("assertNoWrapperForgery", "sanitizeProse")))
write("fence", list(texts("deriveFenceToken")))
write("frontmatter", list(texts("parseGlobsFrontmatter", "frontmatterRefusalReason")))
write("c_abi", [bytes([n % 256, 2, n % 97]) + t for n, t in zip(range(5, 10_000, 31), prose)] + [b"\x00\x00\x05\xff\xfe"])
write("backends", [bytes([n % 256]) + t for n, t in zip(range(11, 10_000, 41), prose)])
write("streaming", [bytes([n % 256, 3, 5]) + t for n, t in zip(range(3, 10_000, 29), prose)] + [b"\x10\x01\x02ab\xe2\x82", b"\x10\x02\x01\xff"])
