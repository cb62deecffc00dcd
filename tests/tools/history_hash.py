"""history_hash.py - an independent Python reference of a history record's content hash
(src/history/record.c fp_history_hash), used to craft hostile but well-hashed records
for `history import` tests (tests/cli/hostile2.sh).

    python3 history_hash.py IN.jsonl OUT.jsonl   # re-hash every record of IN
"""
import hashlib
import json
import math
import sys


def _num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "null|"
    return "%.17g|" % float(v)


def _str(v):
    if not isinstance(v, str):
        return "null|"
    return "%d:%s|" % (len(v.encode()), v)


def _bool(v):
    return "null|" if not isinstance(v, bool) else ("true|" if v else "false|")


def record_hash(r):
    g = lambda o, k: (o or {}).get(k) if isinstance(o, dict) else None
    s = "flyprof-history-record-1|"
    s += _str(r.get("kernel")) + _str(r.get("shape")) + _str(r.get("arch")) + _str(r.get("product"))
    s += _num(g(r.get("workload"), "time_ns_per_call"))
    for k in ("stall_pct", "exposed_pct", "waves", "latency"):
        s += _num(g(r.get("totals"), k))
    s += _str(r.get("bound")) + _str(r.get("bound_rule"))
    s += _num(g(r.get("launch"), "fill_pct")) + _bool(g(r.get("launch"), "underfilled"))
    s += _num(g(r.get("launch"), "workgroups"))
    for k in ("hbm_pct", "mfma_busy_pct", "valu_busy_pct"):
        s += _num(g(r.get("sol"), k))
    s += "classes|"
    for c in r.get("classes") or []:
        s += _str(c.get("class")) + _num(c.get("cycles")) + _num(c.get("exposed")) + _num(c.get("pct"))
    s += "rules|"
    for u in r.get("rules") or []:
        s += _num(u.get("rank")) + _str(u.get("rule")) + _str(u.get("bubble_class")) + _num(u.get("est_gain_pct"))
    s += "metrics|"
    m = r.get("metrics") if isinstance(r.get("metrics"), dict) else {}
    for k in sorted(m, key=lambda x: x.encode()):
        s += "%d:%s|" % (len(k.encode()), k) + _num(m[k])
    p = r.get("provenance") or {}
    s += _str(p.get("commit")) + _bool(p.get("dirty")) + _str(p.get("branch")) + _str(p.get("captured_at"))
    return hashlib.sha256(s.encode()).hexdigest()


if __name__ == "__main__":
    out = open(sys.argv[2], "w")
    for line in open(sys.argv[1]):
        if line.strip():
            r = json.loads(line)
            r["hash"] = record_hash(r)
            out.write(json.dumps(r) + "\n")
