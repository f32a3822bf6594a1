#!/usr/bin/python3
"""Checks every PromQL query of Grafana dashboard JSON files:
  1. syntax, offline: all written as recording rules and passed to `promtool check rules`;
  2. data (with --prom URL): each query run against a live Prometheus must return at least one
     series. Prints one line per query (file, panel, query, series count) and a summary.
Dashboard variables become match-all regexes, Grafana's interval macros concrete durations.

usage: check-dashboard-queries.py [--prom http://127.0.0.1:9090] DASHBOARD.json...
Exit status: 0 when every query passed."""
import json
import re
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

MACROS = {"__rate_interval": "1m", "__interval": "30s", "__range": "5m", "__range_s": "300",
          "__interval_ms": "30000"}


def concrete(expr):
    expr = re.sub(r"\$\{?(__\w+)\}?", lambda m: MACROS.get(m.group(1), "1m"), expr)
    return re.sub(r"\$\{?\w+(?::\w+)?\}?", ".*", expr)


def queries(path):
    """(panel title, expr) of every target of every panel (rows' panels included)."""
    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                if isinstance(t.get("expr"), str) and t["expr"].strip():
                    yield p.get("title", "?"), t["expr"]
            yield from walk(p.get("panels", []))
    with open(path) as f:
        yield from walk(json.load(f).get("panels", []))


def main():
    args = sys.argv[1:]
    prom = None
    if args[:1] == ["--prom"]:
        prom, args = args[1], args[2:]
    found = [(path, title, expr) for path in args for title, expr in queries(path)]
    rules = {"groups": [{"name": "dashboards", "rules": [
        {"record": f"dashboard:query:{i}", "expr": concrete(e)} for i, (_, _, e) in enumerate(found)]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as t:
        json.dump(rules, t)  # promtool reads JSON (a subset of YAML)
        t.flush()
        r = subprocess.run(["promtool", "check", "rules", t.name], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            print("check-dashboard-queries: PromQL syntax check failed")
            return 1
    failed = 0
    for path, title, expr in found:
        note = "syntax ok"
        if prom:
            url = f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": concrete(expr)})
            with urllib.request.urlopen(url, timeout=10) as resp:
                res = json.load(resp)
            n = len(res["data"]["result"]) if res.get("status") == "success" else -1
            note = f"{n} series"
            if n <= 0:
                failed += 1
                note += "  FAIL"
        print(f"{path.rsplit('/', 1)[-1]} | {title} | {expr} -> {note}")
    print(f"check-dashboard-queries: {len(found) - failed} of {len(found)} queries passed"
          + ("" if prom else " (syntax only)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
