#!/usr/bin/env python3
"""Computes docs/capacity.md's table from the benchmarks' JSON output.

    scripts/capacity.py --frontier-json build/bench-frontier.json            # print the table
    scripts/capacity.py --frontier-json build/bench-frontier.json \
        --redis-json build/bench-redis.json --write docs/capacity.md

The table is what a crawl at a given rate needs of each role. A row is computed only from a
figure a benchmark measured (its source is named in the row); a row whose figure no benchmark
measures yet says so instead of guessing. --write replaces the part of the document between
its two capacity-table marker lines, so the prose around it stays as written.

Inputs: the JSON of bench/frontier-scale (`make bench-frontier`, BENCH_FRONTIER_JSON). Its
largest step (most known URLs) gives the frontier's costs: the server process's CPU per link
offered and per URL leased and completed, its RSS, and the disk per known URL after ingest and
after a full compaction. Optionally the JSON of bench/politeness-redis (`redis_scale_bench
--json`): Redis's CPU per claim (each with its release) and its memory per key.
"""

import argparse
import json
import math
import sys

BEGIN = "<!-- capacity-table: begin (scripts/capacity.py writes this part) -->"
END = "<!-- capacity-table: end -->"

SECONDS_PER_MONTH = 30 * 86400
# Links a page offers the frontier: bench/frontier-scale's LinkMix (links_per_page).
LINKS_PER_PAGE = 40


def frontier_costs(path):
    """The per-unit costs of one frontier partition, from its largest measured step."""
    with open(path) as f:
        report = json.load(f)
    steps = [s for s in report.get("steps", []) if s.get("grpc", {}).get("completed", 0) > 0]
    if not steps:
        raise SystemExit(f"{path}: no step with gRPC figures")
    step = max(steps, key=lambda s: s["known_after"])
    grpc = step["grpc"]
    # The server's CPU in the outlink phase also served the leases and completions that ran
    # beside it (steady_completed): take those out at the lease phase's cost per URL.
    link_cpu_us = (grpc["add_cpu_us_per_link"] * grpc["offered"] -
                   grpc["steady_completed"] * grpc["lease_cpu_us_per_url"]) / max(grpc["offered"], 1)
    return {
        "known_urls": step["known_after"],
        "cpu_us_per_link": max(link_cpu_us, 0.0),
        "cpu_us_per_url": grpc["lease_cpu_us_per_url"],
        "rss_bytes": grpc["rss_bytes"],
        "disk_per_url_ingest": step["disk_bytes_after_ingest"] / max(step["known_after_growth"], 1),
        "disk_per_url_compacted": step["disk_bytes_compacted"] / max(step["known_after"], 1),
    }


def redis_costs(path):
    """Redis's CPU per claim (with its release; the step that cost the most per claim) and its
    used_memory per key, from bench/politeness-redis."""
    with open(path) as f:
        report = json.load(f)
    steps = [s for s in report.get("steps", []) if s.get("claims", 0) > 0]
    if not steps:
        raise SystemExit(f"{path}: no step with claims")
    return {
        "cpu_us_per_claim": max(1e6 * s["redis_cpu_seconds"] / s["claims"] for s in steps),
        "bytes_per_key": report["growth_per_key"],
        "hosts_per_address": report["hosts_per_address"],
    }


def human(n, unit=""):
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if n >= factor:
            return f"{n / factor:.1f}{suffix}{unit}"
    return f"{n:.1f} {unit}".rstrip()


def table(costs, scenarios, redis=None):
    source = (f"bench/frontier-scale, gRPC server at {human(costs['known_urls'])} known URLs")
    rows = [
        "| quantity | " + " | ".join(name for name, _ in scenarios) + " | source |",
        "|---|" + "---|" * len(scenarios) + "---|",
    ]

    def row(what, values, src):
        rows.append(f"| {what} | " + " | ".join(values) + f" | {src} |")

    rates = [rate for _, rate in scenarios]
    pages_month = [r * SECONDS_PER_MONTH for r in rates]
    row("pages/s (average over a month)", [f"{r:,.0f}" for r in rates], "the scenario")
    row("pages fetched in a month", [human(p) for p in pages_month], "the scenario")
    row(f"outlinks offered to the frontiers/s ({LINKS_PER_PAGE} per page)",
        [human(r * LINKS_PER_PAGE) for r in rates], "bench/frontier-scale's link mix")
    cores = [r * (costs["cpu_us_per_url"] + LINKS_PER_PAGE * costs["cpu_us_per_link"]) / 1e6
             for r in rates]
    row("frontier CPU cores (lease+complete, and AddUrls of the outlinks)",
        [f"{c:,.1f}" for c in cores], source)
    # A partition serves its calls under one lock: at most about one core's worth of work.
    row("frontier partitions for that CPU (one core each at most)",
        [f"{math.ceil(c):,}" for c in cores], source)
    # URLs known after a month: at least the pages fetched (a crawl knows more than it fetches).
    row("frontier disk, known URLs = pages of a month, compacted",
        [human(p * costs["disk_per_url_compacted"], "B") for p in pages_month], source)
    row("... right after ingest (before compaction)",
        [human(p * costs["disk_per_url_ingest"], "B") for p in pages_month], source)
    row("... known URLs per partition then (measured up to the source's)",
        [human(p / math.ceil(c)) for p, c in zip(pages_month, cores)], source)
    rss = human(costs["rss_bytes"], "B")
    row("frontier RSS per partition", [f"{rss} at {human(costs['known_urls'])} URLs"] * len(rates),
        source + "; not yet measured at 10^8 URLs per partition")
    unmeasured = ["fetcher CPU per page (WARC and fingerprints on)", "dedup CPU per page",
                  "WARC bytes per page", "fetcher memory per host in rotation"]
    if redis is None:
        unmeasured.insert(2, "Redis operations per page and Redis instances")
    else:
        # A page is one politeness claim and one release; Redis runs them on one thread.
        src = "bench/politeness-redis, Redis CPU per claim and release"
        redis_cores = [r * redis["cpu_us_per_claim"] / 1e6 for r in rates]
        row("Redis cores (a claim and a release per page)", [f"{c:,.2f}" for c in redis_cores],
            src)
        row("Redis instances (one thread each)", [f"{max(1, math.ceil(c)):,}" for c in redis_cores],
            src)
        per_million = 1e6 * (1 + 1 / redis["hosts_per_address"]) * redis["bytes_per_key"]
        row(f"Redis memory per 10^6 hosts in rotation ({redis['hosts_per_address']} per address)",
            [human(per_million, "B")] * len(rates), "bench/politeness-redis, used_memory per key")
    for what in unmeasured:
        row(what, ["not yet measured"] * len(rates), "—")
    return "\n".join(rows) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontier-json", required=True, help="bench/frontier-scale's JSON")
    parser.add_argument("--redis-json", help="bench/politeness-redis's JSON (optional)")
    parser.add_argument("--write", help="the document whose table part to replace")
    args = parser.parse_args()
    scenarios = [("10^9 pages/month", 1e9 / SECONDS_PER_MONTH), ("40,000 pages/s", 40000.0)]
    redis = redis_costs(args.redis_json) if args.redis_json else None
    text = table(frontier_costs(args.frontier_json), scenarios, redis)
    if not args.write:
        sys.stdout.write(text)
        return 0
    with open(args.write) as f:
        doc = f.read()
    begin, end = doc.find(BEGIN), doc.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{args.write}: no capacity-table markers")
    doc = doc[:begin + len(BEGIN)] + "\n" + text + doc[end:]
    with open(args.write, "w") as f:
        f.write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
