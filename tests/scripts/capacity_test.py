#!/usr/bin/env python3
"""scripts/capacity.py on bench/standalone's runs.jsonl: the rows it computes from a made-up
runs file (capacity_runs.jsonl next to this script), and what --write keeps of the document.

capacity_runs.jsonl holds, as bench/standalone/run.sh writes them (fields trimmed):
- max mode, 10,000 pages on 200 hosts: wget2 (not a crawler row); the crawler with WARC+fp off
  at 0.2 CPU ms per page; with WARC+fp on at 0.5, 0.9 and 0.4 ms (median 0.5) and 3,000, 3,400
  and 4,000 WARC bytes per page (median 3,400), plus a run that failed (not counted) and the
  no-fsync row (another tool);
- polite mode, 5 pages per host at 5 s: 100 and 1,100 hosts with politeness in process
  (40,000 and 50,000 KiB peak RSS: 10,240 bytes per host) and on Redis (39,000 and 47,000 KiB:
  8,192 bytes per host), a failed Redis run at 1,100 hosts (not counted), and a Redis run of
  5,000 hosts at 1 s, with no web of the same delay to compare with (not used).

Checks: the printed rows; --write with the runs split over two files (pooled) changes only the
bench/standalone rows of a copy of docs/capacity.md, keeping its frontier and Redis rows and
its prose byte for byte; a second --write with only the in-process polite runs recomputes the
memory row and keeps the CPU rows; the max runs marked as the docs web's, given as
--article-runs, make the article rows (and are refused as --standalone-runs, as websim's runs
are as --article-runs); --write with no input leaves the document as it was; a run
without a field the script needs is refused, naming it. Python 3 standard library only.

Usage: capacity_test.py --repo REPO
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

CPU_ROW = ("| `crawler crawl` CPU cores, WARC and fingerprints on (frontier, fetcher and dedup in "
           "one process) | 0.19 | 20.00 | bench/standalone, max mode: 0.500 CPU ms per page "
           "(median of 3 runs), 10,000 pages on 200 hosts |")
PART_ROW = ("| ... of which WARC writing, content keys, SimHash and dedup (WARC+fp on minus off) "
            "| 0.12 | 12.00 | bench/standalone, max mode: 0.500 - 0.200 CPU ms per page (WARC+fp "
            "off: 1 run), 10,000 pages on 200 hosts |")
MEMORY_REDIS_ROW = ("| `crawler crawl` memory per 10^6 hosts in rotation (5 pages each; fetcher "
                    "and frontier in one process) | 8.2 GB | 8.2 GB | bench/standalone, polite "
                    "mode (politeness in Redis), peak RSS 48.1 MB at 1,100 hosts - 39.9 MB at "
                    "100 hosts, 5000 ms delay (one run each) |")
MEMORY_LOCAL_ROW = ("| `crawler crawl` memory per 10^6 hosts in rotation (5 pages each; fetcher "
                    "and frontier in one process) | 10.2 GB | 10.2 GB | bench/standalone, "
                    "polite mode (politeness in process), peak RSS 51.2 MB at 1,100 hosts - "
                    "41.0 MB at 100 hosts, 5000 ms delay (one run each) |")
WARC_ROW = ("| WARC written in a month (gzip members, requests and metadata records included) | "
            "3.4 TB | 352.5 TB | bench/standalone's WARC files, max mode: 3,400 bytes per page "
            "(median of 3 runs), 10,000 of websim's pages on 200 hosts (lighter than real ones) |")
ARTICLE_CPU_ROW = ("| `crawler crawl` CPU cores, WARC and fingerprints on (frontier, fetcher and dedup "
                   "in one process), article pages | 0.19 | 20.00 | bench/standalone --web docs, "
                   "max mode: 0.500 CPU ms per page (median of 3 runs), 10,000 pages on 200 "
                   "hosts |")
ARTICLE_WARC_ROW = ("| WARC written in a month (gzip members, requests and metadata records "
                    "included), article pages | 3.4 TB | 352.5 TB | bench/standalone --web docs, "
                    "its WARC files: 3,400 bytes per page (median of 3 runs), 10,000 of "
                    "python3.11-doc's pages on 200 hosts |")
UNMEASURED = ["| dedup CPU per page | not yet measured | not yet measured | — |"]
BEGIN = "<!-- capacity-table: begin"
END = "<!-- capacity-table: end -->"


def split_doc(text):
    """(prose before the table, table lines, prose after)."""
    begin, end = text.index(BEGIN), text.index(END)
    return text[:begin], text[begin:end].splitlines(), text[end:]


def rows_from(lines, source):
    return [line for line in lines if line.rstrip(" |").split(" | ")[-1].startswith(source)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    script = os.path.join(args.repo, "scripts", "capacity.py")
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capacity_runs.jsonl")
    failures = []

    def capacity(*argv, ok=True):
        out = subprocess.run([sys.executable, script, *argv], capture_output=True, text=True,
                             timeout=60)
        if ok and out.returncode != 0:
            failures.append(f"capacity.py {' '.join(argv)} exited {out.returncode}: {out.stderr}")
        return out

    def expect(lines, wanted, what):
        for line in wanted:
            if line not in lines:
                failures.append(f"{what}: no row\n  {line}\nin\n  " + "\n  ".join(lines))

    with tempfile.TemporaryDirectory() as tmp:
        runs = [json.loads(line) for line in open(fixture) if line.strip()]

        def subset(name, keep):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in runs if keep(r))
            return path

        # Printed: the bench/standalone rows; the inputs not given say so.
        printed = capacity("--standalone-runs", fixture).stdout.splitlines()
        expect(printed, [CPU_ROW, PART_ROW, WARC_ROW, MEMORY_REDIS_ROW] + UNMEASURED, "printed")
        expect(printed, ["| frontier CPU, partitions, disk and RSS (no --frontier-json) | not yet "
                         "measured | not yet measured | — |"], "printed")

        # --write, the runs in two files: only the bench/standalone rows change.
        original = open(os.path.join(args.repo, "docs", "capacity.md")).read()
        doc = os.path.join(tmp, "capacity.md")
        shutil.copy(os.path.join(args.repo, "docs", "capacity.md"), doc)
        before, table, after = split_doc(original)
        kept = {src: rows_from(table, src)
                for src in ("the scenario", "bench/frontier-scale", "bench/politeness-redis")}
        for src, lines in kept.items():
            if not lines:
                failures.append(f"docs/capacity.md has no row from {src}: nothing to keep")
        capacity("--standalone-runs", subset("max.jsonl", lambda r: r["mode"] == "max"),
                 "--standalone-runs", subset("polite.jsonl", lambda r: r["mode"] == "polite"),
                 "--write", doc)
        written = open(doc).read()
        w_before, w_table, w_after = split_doc(written)
        if (w_before, w_after) != (before, after):
            failures.append("--write changed the document outside its table")
        for src, lines in kept.items():
            if rows_from(w_table, src) != lines:
                failures.append(f"--write changed the rows from {src}:\n  " +
                                "\n  ".join(rows_from(w_table, src)))
        expect(w_table, [CPU_ROW, PART_ROW, WARC_ROW, MEMORY_REDIS_ROW] + UNMEASURED, "written")
        if [r for r in w_table if "not yet measured" in r and "fetcher" in r]:
            failures.append("written: the fetcher rows still say not yet measured")

        # Only the in-process polite runs: the memory row is recomputed, the CPU rows kept.
        capacity("--standalone-runs",
                 subset("local.jsonl", lambda r: r["tool"] == "crawler (WARC off)"),
                 "--write", doc)
        _, w_table, _ = split_doc(open(doc).read())
        expect(w_table, [CPU_ROW, PART_ROW, WARC_ROW, MEMORY_LOCAL_ROW] + UNMEASURED, "rewritten")
        if MEMORY_REDIS_ROW in w_table:
            failures.append("rewritten: the old memory row is still there")

        # The docs web's runs (run.sh --web docs marks them): rows of their own, beside the
        # websim rows, which are kept; given as websim runs they are refused.
        docs_runs = os.path.join(tmp, "docs.jsonl")
        with open(docs_runs, "w") as f:
            f.writelines(json.dumps(r | {"web": "docs"}) + "\n" for r in runs if r["mode"] == "max")
        capacity("--article-runs", docs_runs, "--write", doc)
        _, w_table, _ = split_doc(open(doc).read())
        expect(w_table, [ARTICLE_CPU_ROW, ARTICLE_WARC_ROW, CPU_ROW, WARC_ROW], "articles")
        out = capacity("--standalone-runs", docs_runs, ok=False)
        if out.returncode == 0 or "--article-runs" not in out.stderr:
            failures.append(f"docs runs as --standalone-runs: exit {out.returncode}, "
                            f"{out.stderr!r}")
        out = capacity("--article-runs", fixture, ok=False)
        if out.returncode == 0 or "--standalone-runs" not in out.stderr:
            failures.append(f"websim runs as --article-runs: exit {out.returncode}, "
                            f"{out.stderr!r}")

        # No input: the document stays as it is.
        capacity("--write", doc)
        rewritten = open(doc).read()
        capacity("--write", doc)
        if open(doc).read() != rewritten:
            failures.append("--write with no input changed the document")

        # A run without a field the script reads is refused, by name.
        broken = subset("broken.jsonl", lambda r: r["mode"] == "max")
        lines = open(broken).read().splitlines()
        run = json.loads(lines[1])
        del run["maxrss_kb"]
        lines[1] = json.dumps(run)
        open(broken, "w").write("\n".join(lines) + "\n")
        out = capacity("--standalone-runs", broken, ok=False)
        if out.returncode == 0 or "broken.jsonl:2" not in out.stderr or \
                "maxrss_kb" not in out.stderr:
            failures.append(f"a run without maxrss_kb: exit {out.returncode}, {out.stderr!r}")

    for failure in failures:
        print(f"FAIL: {failure}")
    if failures:
        return 1
    print("capacity.py: bench/standalone rows computed; frontier, Redis rows and prose kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
