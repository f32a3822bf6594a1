#!/usr/bin/env python3
"""Computes docs/capacity.md's table from the benchmarks' JSON output.

    scripts/capacity.py --frontier-json build/bench-frontier.json            # print the table
    scripts/capacity.py --frontier-json build/bench-frontier.json \
        --redis-json build/bench-redis.json --standalone-runs RUN/runs.jsonl \
        --write docs/capacity.md

The table is what a crawl at a given rate needs of each role. A row is computed only from a
figure a benchmark measured (its source is named in the row); a row whose figure no benchmark
measures yet says so instead of guessing. --write replaces the part of the document between
its two capacity-table marker lines, so the prose around it stays as written.

Every input is optional: each bench's rows come from its own input. With --write, the rows of a
bench whose input is not given (or gives no figure for them) are kept as the document has them,
found by their source column; so the table can be refreshed one bench at a time (the frontier's
largest steps take hours, bench/standalone minutes). A row that neither an input nor the
document has says "not yet measured".

Inputs: the JSON of bench/frontier-scale (`make bench-frontier`, BENCH_FRONTIER_JSON). Its
largest step (most known URLs) gives the frontier's costs: the server process's CPU per link
offered and per URL leased and completed, its RSS, and the disk per known URL after ingest and
after a full compaction. The JSON of bench/politeness-redis (`redis_scale_bench --json`):
Redis's CPU per claim (each with its release) and its memory per key. The runs.jsonl of
bench/standalone/run.sh (--standalone-runs, repeatable; the files' runs are pooled): from its
max mode, the CPU per page of `crawler crawl` with WARC and fingerprints on (frontier, fetcher
and dedup in one process; the median over the runs) and, with the WARC+fp off row, the part of
it the WARC writer, content keys, SimHash and dedup take; from polite-mode runs on webs of
different host counts at the same delay and pages per host, the peak RSS per host in rotation
(the difference of the largest and smallest web's peak RSS over the difference of their hosts);
and the WARC bytes per page its max mode's crawl wrote (the crawl's warc_bytes). The runs.jsonl
of `bench/standalone/run.sh --web docs` (--article-runs, repeatable): the same CPU and WARC
figures on real article pages (Debian's python3.11-doc), in rows of their own.
"""

import argparse
import functools
import json
import math
import statistics
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


# bench/standalone/run.sh's rows (its `tool` names): the max mode's crawler with WARC and
# fingerprints on (with fsync, the default) and off; the polite mode's crawler with its
# politeness timers in the process and in Redis.
MAX_ON, MAX_OFF = "crawler (WARC+fp on)", "crawler (WARC+fp off)"
POLITE_LOCAL, POLITE_REDIS = "crawler (WARC off)", "crawler (WARC off), Redis"
POLITE_WARC_LOCAL, POLITE_WARC_REDIS = "crawler (WARC+fp on)", "crawler (WARC+fp on), Redis"
# The sources of bench/standalone's rows: rows kept from the document are found by them.
STANDALONE_MAX = "bench/standalone, max mode"
STANDALONE_POLITE = "bench/standalone, polite mode"
STANDALONE_WARC = "bench/standalone's WARC files, max mode"
ARTICLE_MAX = "bench/standalone --web docs, max mode"
ARTICLE_WARC = "bench/standalone --web docs, its WARC files"


def read_runs(paths, web):
    """The runs of bench/standalone's runs.jsonl files, pooled; only those that exited as they
    should and fetched pages. Every run must be of `web` (websim or docs; runs recorded before
    run.sh wrote the field are websim's)."""
    runs = []
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    run = json.loads(line)
                except ValueError as e:
                    raise SystemExit(f"{path}:{number}: not a JSON line: {e}")
                for field in ("mode", "tool", "exit_ok", "user_s", "sys_s", "maxrss_kb",
                              "analysis"):
                    if field not in run:
                        raise SystemExit(f"{path}:{number}: no '{field}' in the run")
                if run.get("web", "websim") != web:
                    raise SystemExit(
                        f"{path}:{number}: a run of the {run.get('web', 'websim')} web; give "
                        + ("--article-runs" if web == "websim" else "--standalone-runs")
                        + " for it")
                if run["exit_ok"] and run["analysis"].get("html_pages", 0) > 0:
                    runs.append(run)
    return runs


def cpu_ms_per_page(run):
    """The process's CPU (user + system) per HTML page the server served it."""
    return 1e3 * (run["user_s"] + run["sys_s"]) / run["analysis"]["html_pages"]


def standalone_costs(paths, web="websim"):
    """From bench/standalone's runs: the CPU per page of the max mode's crawler with WARC and
    fingerprints on, and without (medians over the runs), and the peak RSS per host of the
    polite mode (two webs of different host counts, the same delay and pages per host)."""
    runs = read_runs(paths, web)
    out = {}

    def max_rows(tool):
        return [r for r in runs if r["mode"] == "max" and r["tool"] == tool]

    on, off = max_rows(MAX_ON), max_rows(MAX_OFF)
    if on:
        out["cpu"] = {
            "ms_per_page": statistics.median(cpu_ms_per_page(r) for r in on),
            "runs": len(on),
            "pages": max(r["analysis"]["html_pages"] for r in on),
            "hosts": max(r["analysis"].get("hosts", 0) for r in on),
        }
        if off:
            out["cpu"]["off_ms_per_page"] = statistics.median(cpu_ms_per_page(r) for r in off)
            out["cpu"]["off_runs"] = len(off)
    # The WARC bytes the crawl wrote (its --stats-json), per page.
    warc = [r for r in on if (r.get("crawler_stats") or {}).get("warc_bytes", 0) > 0]
    if warc:
        out["warc"] = {
            "bytes_per_page": statistics.median(
                r["crawler_stats"]["warc_bytes"] / r["analysis"]["html_pages"] for r in warc),
            "runs": len(warc),
            "pages": max(r["analysis"]["html_pages"] for r in warc),
            "hosts": max(r["analysis"].get("hosts", 0) for r in warc),
        }

    # Politeness in Redis first: a cluster's fetchers keep their timers there (the Redis row
    # counts Redis's own memory), so the crawler's RSS then holds what a fetcher holds.
    for tool in (POLITE_REDIS, POLITE_LOCAL, POLITE_WARC_REDIS, POLITE_WARC_LOCAL):
        memory = polite_memory([r for r in runs if r["mode"] == "polite" and r["tool"] == tool])
        if memory:
            out["memory"] = memory | {"tool": tool}
            break
    return out


def polite_memory(runs):
    """Peak RSS per host: the runs of the web with the most hosts against those of the web with
    the fewest that was crawled at the same delay with the same pages per host (the median peak
    RSS of each web's runs); None without two such webs."""
    by_web = {}  # (hosts, delay, pages per host) -> peak RSS of its runs, bytes
    for r in runs:
        a = r["analysis"]
        if not a.get("hosts") or a.get("delay_ms") is None:
            continue
        key = (a["hosts"], a["delay_ms"], round(a["html_pages"] / a["hosts"], 1))
        by_web.setdefault(key, []).append(r["maxrss_kb"] * 1024)
    pairs = [(large, small) for large in by_web for small in by_web
             if small[1:] == large[1:] and small[0] < large[0]]
    if not pairs:
        return None
    large, small = max(pairs, key=lambda p: (p[0][0], -p[1][0]))
    rss_large, rss_small = (statistics.median(by_web[k]) for k in (large, small))
    return {
        "bytes_per_host": (rss_large - rss_small) / (large[0] - small[0]),
        "hosts": (small[0], large[0]), "rss_bytes": (rss_small, rss_large),
        "delay_ms": large[1], "pages_per_host": large[2],
        "runs": (len(by_web[small]), len(by_web[large])),
    }


def kept_rows(table_text):
    """The rows of the document's current table (its text between the markers): (source, line)
    in order."""
    rows = []
    for line in table_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) < 2 or cells[0] == "quantity":
            continue
        rows.append((cells[-1], line))
    return rows


def human(n, unit=""):
    for factor, suffix in ((1e15, " P"), (1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if n >= factor:
            return f"{n / factor:.1f}{suffix}{unit}"
    return f"{n:.1f} {unit}".rstrip()


def frontier_rows(costs, rates, row):
    source = (f"bench/frontier-scale, gRPC server at {human(costs['known_urls'])} known URLs")
    pages_month = [r * SECONDS_PER_MONTH for r in rates]
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
        source + ("; not yet measured at 10^8 URLs per partition"
                  if costs["known_urls"] < 1e8 else ""))


def redis_rows(redis, rates, row):
    # A page is one politeness claim and one release; Redis runs them on one thread.
    src = "bench/politeness-redis, Redis CPU per claim and release"
    redis_cores = [r * redis["cpu_us_per_claim"] / 1e6 for r in rates]
    row("Redis cores (a claim and a release per page)", [f"{c:,.2f}" for c in redis_cores], src)
    row("Redis instances (one thread each)", [f"{max(1, math.ceil(c)):,}" for c in redis_cores],
        src)
    per_million = 1e6 * (1 + 1 / redis["hosts_per_address"]) * redis["bytes_per_key"]
    row(f"Redis memory per 10^6 hosts in rotation ({redis['hosts_per_address']} per address)",
        [human(per_million, "B")] * len(rates), "bench/politeness-redis, used_memory per key")


def runs_text(n):
    return "1 run" if n == 1 else f"median of {n} runs"


def standalone_cpu_rows(cpu, rates, row, source=STANDALONE_MAX, pages=""):
    web = f"{cpu['pages']:,} pages on {cpu['hosts']:,} hosts"
    ms = cpu["ms_per_page"]
    row("`crawler crawl` CPU cores, WARC and fingerprints on (frontier, fetcher and dedup in one "
        f"process){pages}", [f"{r * ms / 1e3:,.2f}" for r in rates],
        f"{source}: {ms:.3f} CPU ms per page ({runs_text(cpu['runs'])}), {web}")
    if "off_ms_per_page" in cpu:
        extra = max(ms - cpu["off_ms_per_page"], 0.0)
        row("... of which WARC writing, content keys, SimHash and dedup (WARC+fp on minus off)"
            f"{pages}", [f"{r * extra / 1e3:,.2f}" for r in rates],
            f"{source}: {ms:.3f} - {cpu['off_ms_per_page']:.3f} CPU ms per page "
            f"(WARC+fp off: {runs_text(cpu['off_runs'])}), {web}")


def standalone_warc_rows(w, rates, row, source=STANDALONE_WARC, what="",
                         pages="of websim's pages", note=" (lighter than real ones)"):
    per_page = w["bytes_per_page"]
    row(f"WARC written in a month (gzip members, requests and metadata records included){what}",
        [human(r * SECONDS_PER_MONTH * per_page, "B") for r in rates],
        f"{source}: {per_page:,.0f} bytes per page ({runs_text(w['runs'])}), "
        f"{w['pages']:,} {pages} on {w['hosts']:,} hosts{note}")


def standalone_memory_rows(m, rates, row):
    where = "politeness in Redis" if m["tool"].endswith(", Redis") else "politeness in process"
    (h0, h1), (b0, b1) = m["hosts"], m["rss_bytes"]
    runs = ("one run each" if m["runs"] == (1, 1)
            else f"medians of {m['runs'][1]} and {m['runs'][0]} runs")
    row(f"`crawler crawl` memory per 10^6 hosts in rotation ({m['pages_per_host']:g} pages each; "
        "fetcher and frontier in one process)",
        [human(1e6 * m["bytes_per_host"], "B")] * len(rates),
        f"{STANDALONE_POLITE} ({where}), peak RSS {human(b1, 'B')} at {h1:,} hosts - "
        f"{human(b0, 'B')} at {h0:,} hosts, {m['delay_ms']:g} ms delay "
        f"({runs})")


def table(scenarios, costs=None, redis=None, standalone=None, kept=(), articles=None):
    """The table. costs, redis, standalone and articles: the figures of the inputs given (None:
    not given); kept: the document's current rows, (source, line), which stand in for the rows
    of an input not given, or of a figure the input given lacks."""
    standalone = standalone or {}
    articles = articles or {}
    rows = [
        "| quantity | " + " | ".join(name for name, _ in scenarios) + " | source |",
        "|---|" + "---|" * len(scenarios) + "---|",
    ]

    def row(what, values, src):
        rows.append(f"| {what} | " + " | ".join(values) + f" | {src} |")

    def unmeasured(what):
        row(what, ["not yet measured"] * len(rates), "—")

    def part(figures, make, source, missing):
        """The rows of one figure: computed, else the document's (by source), else missing."""
        if figures:
            make(figures, rates, row)
            return
        lines = [line for src, line in kept if src.startswith(source)]
        if lines:
            rows.extend(lines)
        else:
            missing()

    rates = [rate for _, rate in scenarios]
    pages_month = [r * SECONDS_PER_MONTH for r in rates]
    row("pages/s (average over a month)", [f"{r:,.0f}" for r in rates], "the scenario")
    row("pages fetched in a month", [human(p) for p in pages_month], "the scenario")
    part(costs, frontier_rows, "bench/frontier-scale",
         lambda: unmeasured("frontier CPU, partitions, disk and RSS (no --frontier-json)"))
    part(redis, redis_rows, "bench/politeness-redis",
         lambda: unmeasured("Redis operations per page and Redis instances"))
    part(standalone.get("cpu"), standalone_cpu_rows, STANDALONE_MAX,
         lambda: unmeasured("fetcher CPU per page (WARC and fingerprints on)"))
    unmeasured("dedup CPU per page")
    part(standalone.get("warc"), standalone_warc_rows, STANDALONE_WARC,
         lambda: unmeasured("WARC bytes per page"))
    part(standalone.get("memory"), standalone_memory_rows, STANDALONE_POLITE,
         lambda: unmeasured("fetcher memory per host in rotation"))
    part(articles.get("cpu"),
         functools.partial(standalone_cpu_rows, source=ARTICLE_MAX, pages=", article pages"),
         ARTICLE_MAX, lambda: unmeasured("CPU per page on article pages"))
    part(articles.get("warc"),
         functools.partial(standalone_warc_rows, source=ARTICLE_WARC, what=", article pages",
                           pages="of python3.11-doc's pages", note=""),
         ARTICLE_WARC, lambda: unmeasured("WARC bytes per page of article pages"))
    return "\n".join(rows) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontier-json", help="bench/frontier-scale's JSON")
    parser.add_argument("--redis-json", help="bench/politeness-redis's JSON")
    parser.add_argument("--standalone-runs", action="append", default=[], metavar="RUNS_JSONL",
                        help="bench/standalone/run.sh's runs.jsonl (repeatable: runs pooled)")
    parser.add_argument("--article-runs", action="append", default=[], metavar="RUNS_JSONL",
                        help="bench/standalone/run.sh --web docs's runs.jsonl (repeatable)")
    parser.add_argument("--write", help="the document whose table part to replace; the rows of "
                        "inputs not given are kept as it has them")
    args = parser.parse_args()
    scenarios = [("10^9 pages/month", 1e9 / SECONDS_PER_MONTH), ("40,000 pages/s", 40000.0)]
    costs = frontier_costs(args.frontier_json) if args.frontier_json else None
    redis = redis_costs(args.redis_json) if args.redis_json else None
    standalone = standalone_costs(args.standalone_runs) if args.standalone_runs else None
    articles = standalone_costs(args.article_runs, "docs") if args.article_runs else None
    if not args.write:
        sys.stdout.write(table(scenarios, costs, redis, standalone, articles=articles))
        return 0
    with open(args.write) as f:
        doc = f.read()
    begin, end = doc.find(BEGIN), doc.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{args.write}: no capacity-table markers")
    text = table(scenarios, costs, redis, standalone, kept_rows(doc[begin + len(BEGIN):end]),
                 articles)
    doc = doc[:begin + len(BEGIN)] + "\n" + text + doc[end:]
    with open(args.write, "w") as f:
        f.write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
