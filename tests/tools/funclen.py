#!/usr/bin/env python3
"""funclen.py DIR... : list C functions (top-level '{' ... '}' blocks at column 0) with their length."""
import re, sys, os
rows = []
for root in sys.argv[1:]:
    for dp, _, fs in os.walk(root):
        for f in fs:
            if not f.endswith(".c"): continue
            p = os.path.join(dp, f)
            lines = open(p, errors="replace").read().split("\n")
            start = None
            for i, l in enumerate(lines):
                if l.startswith("{") and start is None:
                    j = i - 1
                    while j >= 0 and "(" not in lines[j]: j -= 1
                    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", lines[j]) if j >= 0 else None
                    name = m.group(1) if m else "?"
                    start = (j if j >= 0 else i, name)
                elif l.startswith("}") and start is not None:
                    rows.append((i - start[0] + 1, p, start[1]))
                    start = None
for n, p, name in sorted(rows, reverse=True):
    print(f"{n}\t{p}\t{name}")
