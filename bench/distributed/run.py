#!/usr/bin/env python3
"""bench/distributed: what the distributed crawl costs against the standalone crawl, measured in
the same run on the same web (docs/benchmarks.md, "Distributed crawl"). Not a timed test: people
run it (`make bench-distributed`) and read the table.

Rows, each crawling websim (default: the web of bench/standalone, 200 hosts x 60 pages, seed 1)
with WARC and fingerprints on, no per-host delay, 2 connections per host:
  standalone        `crawler crawl`, one process;
  distributed N=1   crawlerd: 1 frontier, 1 fetcher, dedup, scheduler (scripts/cluster.py);
  distributed N=2   2 frontiers, 2 fetchers, dedup, scheduler.
Figures per row: pages (unique page requests in websim's log), wall time, CPU seconds of the
crawler's processes (utime + stime from /proc, websim excluded) per 1,000 pages and its ratio to
the standalone row (target <= 1.5), and for the distributed rows the hot-path RPCs per page
(AddUrls, Lease, Complete, ReleaseLeases, ReportHostTimes served by the frontiers and Check,
Record served by dedup, from their /metrics; target <= 0.05).

Exchange overhead (Cho & Garcia-Molina): on a web where every page links its site's root and
the roots of 10 popular hosts (websim --popular-links 10), N=2 with and without the fetchers'
popular-URL cache: URLs sent to another partition per page fetched, and how much of it the cache
removes (target >= 30%).

Usage: PYTHONPATH=tests bench/distributed/run.py [--build-dir build] [--out DIR] [--hosts 200]
       [--pages 60]   (make bench-distributed; the Cluster comes from tests/crawlertest)
Exit status: 0 every target met, 1 a target missed, 2 a run failed.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.dont_write_bytecode = True

from crawlertest.cluster import Cluster, ClusterError  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
CRAWL_SETTINGS = ["--min-delay", "0", "--delay-factor", "0", "--max-connections-per-host", "2",
                  "--max-in-flight", "512"]
HOT_PATH = ("AddUrls", "Lease", "Complete", "ReleaseLeases", "ReportHostTimes", "Check", "Record")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


class Websim:
    def __init__(self, binary, directory, hosts, pages, seed, extra=()):
        os.makedirs(directory, exist_ok=True)
        self.log = os.path.join(directory, "requests.log")
        self.seeds = os.path.join(directory, "seeds.txt")
        port_file = os.path.join(directory, "port")
        self.proc = subprocess.Popen(
            [binary, "--hosts", str(hosts), "--pages", str(pages), "--seed", str(seed),
             "--port", "0", "--port-file", port_file, "--log", self.log, "--seeds-file",
             self.seeds, "--threads", "2", "--max-seconds", "3600", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(directory, "websim.stderr"), "wb"))
        deadline = time.monotonic() + 120
        while True:
            if os.path.exists(port_file) and open(port_file).read().strip().isdigit():
                self.port = int(open(port_file).read().strip())
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("websim did not start")
            time.sleep(0.05)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)

    def page_requests(self):
        urls = set()
        with open(self.log) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 4 or fields[2] in ("/robots.txt", "/sitemap.xml"):
                    continue
                if fields[2].startswith("/__websim/"):
                    continue
                urls.add((fields[1], fields[2]))
        return len(urls)


def run_standalone(args, work):
    sim = Websim(args.websim, os.path.join(work, "web"), args.hosts, args.pages, args.seed)
    try:
        data = os.path.join(work, "data")
        t0 = time.monotonic()
        proc = subprocess.Popen([args.crawler, "crawl", "--seeds", sim.seeds, "--data-dir", data,
                                 "--connect-to", f"127.0.0.1:{sim.port}", "--allow-network",
                                 "127.0.0.0/8", "--quiet", *CRAWL_SETTINGS],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(work, "crawl.stderr"), "wb"))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"standalone crawl failed; see {work}/crawl.stderr")
        cpu = usage.ru_utime + usage.ru_stime
    finally:
        sim.stop()
    return {"row": "standalone", "pages": sim.page_requests(), "wall_s": wall, "cpu_s": cpu}


def collection_yaml(path, seeds_file):
    with open(path, "w") as f:
        f.write("name: bench\nmin_delay: 0\ndelay_factor: 0\nmax_connections_per_host: 2\n"
                "seeds:\n")
        for seed in open(seeds_file).read().split():
            f.write(f"  - {seed}\n")


def served_calls(cluster):
    """Calls served, by method, by the frontiers and dedup: the RPC interceptor's count of each
    role (crawler_<role>_rpc_duration_seconds_count on its /metrics), read before the stop."""
    calls = {}
    for role, k in [("frontier", k) for k in range(cluster.n)] + [("dedup", 0)]:
        url = f"http://{cluster.metrics_address(role, k)}/metrics"
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        pattern = rf'^crawler_{role}_rpc_duration_seconds_count{{method="(\w+)"}} (\S+)$'
        for m in re.finditer(pattern, text, re.M):
            calls[m.group(1)] = calls.get(m.group(1), 0) + int(float(m.group(2)))
    return calls


def run_distributed(args, work, n, web_extra=(), fetcher_extra=(), label=None):
    sim = Websim(args.websim, os.path.join(work, "web"), args.hosts, args.pages, args.seed,
                 web_extra)
    # In-process politeness in each fetcher, like the standalone crawl it is compared with (what
    # Redis costs is bench/standalone's polite Redis row).
    cluster = Cluster(args.crawlerd, args.crawlctl, os.path.join(work, "cluster"), n,
                      fetcher_args=["--allow-network", "127.0.0.0/8", "--connect-to",
                                    f"127.0.0.1:{sim.port}", *CRAWL_SETTINGS, *fetcher_extra],
                      redis=False, metrics=True)
    try:
        cluster.start()
        procs = {p.name: p.proc.pid for p in cluster.procs.values()}
        cpu0 = {name: cpu_seconds(pid) for name, pid in procs.items()}
        collection_yaml(os.path.join(work, "bench.yaml"), sim.seeds)
        t0 = time.monotonic()
        cluster.ctl("collections", "create", "-f", os.path.join(work, "bench.yaml"))
        while True:
            stats = json.loads(cluster.ctl("stats", "bench", json_out=True).stdout)
            if stats.get("exhausted"):
                break
            if time.monotonic() - t0 > args.run_timeout:
                raise RuntimeError(f"distributed N={n} not done in {args.run_timeout} s")
            time.sleep(0.25)
        wall = time.monotonic() - t0
        by_process = {name: cpu_seconds(pid) - cpu0[name] for name, pid in procs.items()}
        cpu = sum(by_process.values())
        time.sleep(2.5)  # the fetchers' last reports
        stats = json.loads(cluster.ctl("stats", "bench", json_out=True).stdout)
        calls = served_calls(cluster)
    finally:
        codes = cluster.stop()
        sim.stop()
    if any(c != 0 for c in codes.values()):
        raise RuntimeError(f"a process did not stop cleanly: {codes}")
    pages = sim.page_requests()
    return {"row": label or f"distributed N={n}", "pages": pages, "wall_s": wall, "cpu_s": cpu,
            "hot_rpcs": sum(calls.get(m, 0) for m in HOT_PATH), "calls": calls,
            "cpu_by_process": {k: round(v, 2) for k, v in sorted(by_process.items())},
            "exchanged": int(stats.get("urls_exchanged", 0)),
            "suppressed": int(stats.get("urls_suppressed", 0)),
            "routed_pages": int(stats.get("pages", 0))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--out", default="")
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--popular-links", type=int, default=10)
    parser.add_argument("--run-timeout", type=float, default=600)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--smoke", action="store_true",
                        help="a run of seconds that checks the bench still works: a small web "
                             "(8 hosts x 10 pages unless --hosts/--pages say otherwise), no "
                             "targets; every row must complete and fetch the same pages as the "
                             "standalone crawl (ctest: bench.distributed_small)")
    args = parser.parse_args()
    if args.smoke:
        args.hosts = 8 if args.hosts == parser.get_default("hosts") else args.hosts
        args.pages = 10 if args.pages == parser.get_default("pages") else args.pages
        args.run_timeout = min(args.run_timeout, 120)
        args.popular_links = min(args.popular_links, args.hosts // 2)
    b = args.build_dir
    args.crawler = os.path.join(b, "tools", "crawler", "crawler")
    args.crawlerd = os.path.join(b, "tools", "crawlerd", "crawlerd")
    args.crawlctl = os.path.join(b, "tools", "crawlctl", "crawlctl")
    args.websim = os.path.join(b, "tools", "websim", "websim")
    out = args.out or tempfile.mkdtemp(prefix="bench-distributed-")
    os.makedirs(out, exist_ok=True)
    rows = []
    try:
        rows.append(run_standalone(args, os.path.join(out, "standalone")))
        for n in (1, 2):
            rows.append(run_distributed(args, os.path.join(out, f"n{n}"), n))
        popular = ["--popular-links", str(args.popular_links)]
        cached = run_distributed(args, os.path.join(out, "popular-cache"), 2, popular,
                                 label="N=2, popular links, cache on")
        uncached = run_distributed(args, os.path.join(out, "popular-nocache"), 2, popular,
                                   ["--popular-cache-entries", "0"],
                                   label="N=2, popular links, cache off")
    except (RuntimeError, ClusterError, subprocess.TimeoutExpired) as e:
        print(f"bench/distributed: {e} (files in {out})", file=sys.stderr)
        return 2
    base = rows[0]["cpu_s"] / rows[0]["pages"] * 1000
    missed = []
    print(f"web: websim --hosts {args.hosts} --pages {args.pages} --seed {args.seed}; WARC and "
          f"fingerprints on; no delay, 2 connections per host, 512 in flight\n")
    print("| row | pages | wall s | pages/s | CPU s / 1,000 pages | vs standalone | hot-path RPCs / page |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        per_k = r["cpu_s"] / r["pages"] * 1000
        ratio = per_k / base
        rpcs = r["hot_rpcs"] / r["pages"] if "hot_rpcs" in r else None
        print(f"| {r['row']} | {r['pages']} | {r['wall_s']:.1f} | {r['pages'] / r['wall_s']:.0f} "
              f"| {per_k:.2f} | {ratio:.2f}x | {'-' if rpcs is None else f'{rpcs:.4f}'} |")
        if r["row"] != "standalone" and ratio > 1.5:
            missed.append(f"{r['row']}: CPU {ratio:.2f}x the standalone crawl (target <= 1.5)")
        if rpcs is not None and rpcs > 0.05:
            missed.append(f"{r['row']}: {rpcs:.4f} hot-path RPCs per page (target <= 0.05)")
    for r in rows[1:]:
        print(f"  {r['row']}: CPU s by process {r['cpu_by_process']}; calls "
              f"{r['calls']}")
    with_cache = cached["exchanged"] / cached["pages"]
    without = uncached["exchanged"] / uncached["pages"]
    removed = 1 - with_cache / without if without else 0.0
    print(f"\nexchange overhead, websim --popular-links {args.popular_links}, N=2:")
    print("| popular-URL cache | pages | URLs sent to the other partition | per page | suppressed |")
    print("|---|---|---|---|---|")
    print(f"| on (65,536 entries) | {cached['pages']} | {cached['exchanged']} | {with_cache:.2f} "
          f"| {cached['suppressed']} |")
    print(f"| off | {uncached['pages']} | {uncached['exchanged']} | {without:.2f} | "
          f"{uncached['suppressed']} |")
    print(f"the cache removes {removed:.1%} of the exchanged URLs (target >= 30%)")
    if removed < 0.30:
        missed.append(f"popular-URL cache removes {removed:.1%} (target >= 30%)")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"rows": rows, "cache_on": cached, "cache_off": uncached}, f, indent=1)
    if args.smoke:
        # Targets mean nothing on a web this small; what must hold is that every row crawled it.
        missed = [f"{r['row']}: {r['pages']} pages, the standalone crawl {rows[0]['pages']}"
                  for r in rows[1:] + [cached, uncached] if r["pages"] != rows[0]["pages"]]
        if rows[0]["pages"] == 0:
            missed.append("the standalone crawl fetched no page")
    for m in missed:
        print(f"MISSED: {m}")
    if not args.keep and not missed:
        shutil.rmtree(out, ignore_errors=True)
    else:
        print(f"files in {out}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
