#!/usr/bin/env python3
"""bench/distributed/reshard.py: a live reshard of the services, 2 -> 3 partitions, while a polite
crawl with about 10^6 URLs queued goes on (docs/benchmarks.md, "Resharding"). Not a timed test:
people run it (`make bench-reshard`) and read the table.

The run, everything on 127.0.0.1 (the Cluster of tests/crawlertest, as bench/distributed/run.py):
  1. websim: --hosts 10000 --pages 135 --seed 1 (1.17 x 10^6 allowed pages in its ground truth);
  2. three frontiers and three fetchers, dedup, Redis (the fetchers' shared politeness) and the
     scheduler started with --partitions 2: frontier 2 and fetcher 2 have nothing to do yet;
  3. the collection created with crawlctl (the hosts' roots as seeds, one connection per host,
     --delay between two requests to a host), then every page of the ground truth added with
     `crawlctl seeds add` from a file: the seeds' rate is printed;
  4. --warmup seconds, then a window of --window seconds: the crawl's pages/s before;
  5. the scheduler restarted (SIGTERM, drained) with --partitions 3: hosts move (phase moving),
     the layout flips to 3, and --settle after the flip the reshard is done;
  6. a window of --window seconds at 3 partitions;
  7. the mover alone: the collection paused (its leases handed back), the scheduler restarted
     with --partitions 2; its hosts/s and URLs/s are the ceiling of a move that waits for no
     lease (--no-paused-move skips it).
Figures: hosts and URLs moved (crawlctl partitions --json, and the scheduler's "resharding done"
line) per second of the moving phase (started -> flipped, the scheduler's own times); pages/s
from websim's request log (page requests, not robots.txt) in each phase, by the partition that
sent them (X-Crawler-Partition), against the window before; the cores the crawler's processes
used in each phase (and their CPU per page), websim's, the rest of the machine's and the steal
(/proc/stat: the machine is shared, read a phase's pages/s next to them); URLs queued when the
move began (crawlctl stats).
Checks: the reshard finishes (steady at 3 within --move-timeout), the URLs the partitions know
(crawlctl stats `seen`) are not fewer after it than before, no page is fetched twice, no request
to a host follows the previous one sooner than the delay, every process drains and exits 0;
the paused move leaves the URLs queued and known as they were.

--smoke (ctest bench.reshard_small, under a minute, correctness only): 100 hosts x 115 pages
(about 10^4 URLs), a 200 ms delay, short windows and --settle 2s; after the reshard the crawl
runs to its end, and every seeded page must be fetched exactly once, some of them by fetcher 2.

Usage: PYTHONPATH=tests bench/distributed/reshard.py [--build-dir build] [--out DIR]
       [--hosts 10000] [--pages 135] [--delay 5s] [--warmup 60] [--window 60] [--json FILE]
Output: the table on stdout, results.json in --out (and --json FILE). Exit status: 0 every check
passed, 1 a check failed, 2 a run failed (a process did not start, the reshard did not finish).
"""

import argparse
import bisect
import collections
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

from crawlertest.cluster import Cluster, ClusterError  # noqa: E402
from crawlertest.e2e import Checks, Fatal, Websim, monotonic_ns, wait_until  # noqa: E402
from run import cpu_seconds  # noqa: E402

COLLECTION = "bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")
DONE = re.compile(r"resharding done: (\d+) partitions, (\d+) hosts and (\d+) URLs moved in (\S+)")


def parse_duration_s(text):
    """'5s', '100ms', '2m' -> seconds."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text} (e.g. 5s, 100ms)")
    return float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[m.group(2)]


def as_int(v):
    return int(v) if v not in (None, "") else 0


def wall_to_monotonic_ns(stamp):
    """An RFC 3339 time of the scheduler's (crawlctl --json) on this machine's CLOCK_MONOTONIC,
    the clock of websim's request log."""
    if not stamp:
        return None
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z", stamp)
    whole = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    ns = int(whole.timestamp()) * 1_000_000_000 + int((m.group(2) or "0").ljust(9, "0")[:9])
    return ns - (time.time_ns() - monotonic_ns())


class Recorder:
    """Samples the crawl while the run waits: the CPU time of every process (each poll) and
    crawlctl stats / partitions (every few seconds), on CLOCK_MONOTONIC."""

    def __init__(self, cluster, sim, stats_every_s):
        self.cluster = cluster
        self.sim = sim
        self.stats_every_s = stats_every_s
        # (ns, {pid: cpu s} of the cluster's processes, websim's cpu s, the machine's (busy s,
        # steal s))
        self.cpu = []
        self.names = {}     # pid -> process name (frontier-0, scheduler-0, ...)
        self.stats = []     # (ns, crawlctl stats JSON)
        self.layouts = []   # (ns, crawlctl partitions JSON)
        self.last_stats_ns = 0

    def sample(self, partitions=False):
        now = monotonic_ns()
        pids = {}
        for p in self.cluster.procs.values():
            if p.running():
                try:
                    pids[p.proc.pid] = cpu_seconds(p.proc.pid)
                    self.names[p.proc.pid] = p.name
                except (FileNotFoundError, ProcessLookupError):
                    pass
        self.cpu.append((now, pids, cpu_seconds(self.sim.proc.pid), machine_seconds()))
        if now - self.last_stats_ns >= self.stats_every_s * 1e9:
            self.last_stats_ns = now
            s = self.stats_now()
            if s is not None:
                self.stats.append((now, s))
        if partitions:
            p = self.partitions_now()
            if p is not None:
                self.layouts.append((now, p))
                return p
        return None

    def stats_now(self):
        out = self.cluster.ctl("stats", COLLECTION, json_out=True, check=False, timeout_s=30)
        return json.loads(out.stdout) if out.returncode == 0 else None

    def partitions_now(self):
        out = self.cluster.ctl("partitions", json_out=True, check=False, timeout_s=30)
        return json.loads(out.stdout) if out.returncode == 0 else None

    def wait(self, seconds, poll_s=1.0, partitions=False):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.sample(partitions)
            time.sleep(max(0.0, min(poll_s, end - time.monotonic())))

    def cores(self, start_ns, end_ns):
        """Cores used between the samples nearest inside the window: by the crawler's processes
        (one started in it counts from its start, one gone in it is left out), by websim, by
        everything else on the machine (this script and crawlctl included), and the cores the
        hypervisor gave other guests (steal). None for a window without two samples."""
        times = [c[0] for c in self.cpu]
        i = bisect.bisect_left(times, start_ns)
        j = bisect.bisect_right(times, end_ns) - 1
        if i >= len(times) or j <= i or times[j] - times[i] < 0.5e9:
            return None
        (t0, a, w0, (busy0, steal0)), (t1, b, w1, (busy1, steal1)) = self.cpu[i], self.cpu[j]
        dt = (t1 - t0) / 1e9
        by_role = collections.Counter()
        for pid, cpu in b.items():
            by_role[self.names[pid].rsplit("-", 1)[0]] += (cpu - a.get(pid, 0.0)) / dt
        crawler = sum(by_role.values())
        web = (w1 - w0) / dt
        return {"crawler": crawler, "websim": web,
                "others": (busy1 - busy0) / dt - crawler - web, "steal": (steal1 - steal0) / dt,
                "by_role": {role: round(c, 3) for role, c in sorted(by_role.items())}}


def machine_seconds():
    """CPU seconds the machine was busy (every core, user + nice + system + irq + softirq) and
    seconds stolen by the hypervisor, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return busy / CLK_TCK, fields[7] / CLK_TCK


def write_seeds(truth_file, path):
    """Every allowed page of websim's ground truth (kind `page`), one URL a line."""
    n = 0
    with open(truth_file) as src, open(path, "w") as dst:
        for line in src:
            if line.startswith("page\t"):
                dst.write(line.split("\t", 1)[1])
                n += 1
    return n


def write_collection(path, roots, delay_s):
    with open(path, "w") as f:
        f.write(f"name: {COLLECTION}\nmin_delay: {delay_s * 1000:.0f}ms\ndelay_factor: 0\n"
                "max_connections_per_host: 1\nseeds:\n")
        for seed in roots:
            f.write(f"  - {seed}\n")


def read_requests(log_path, delay_ns):
    """One pass over websim's request log: the arrival times of page requests (robots.txt,
    sitemaps and websim's own endpoints excluded) with the partition that sent them, the page
    URLs requested and how many were requested more than once, and the gaps between two
    requests to one host (robots.txt included) shorter than the delay, with the smallest gap."""
    times = []
    repeated = 0
    urls = set()
    by_host = collections.defaultdict(list)
    with open(log_path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 7 or fields[2].startswith("/__websim/"):
                continue
            ns, host, target = int(fields[0]), fields[1], fields[2]
            # Gaps on the wall clock when the log has it: the delays are kept in Redis, whose
            # TIME is the wall clock (docs/websim.md, "Request log").
            by_host[host].append(int(fields[8]) if len(fields) > 8 else ns)
            if target in ("/robots.txt", "/sitemap.xml"):
                continue
            times.append((ns, fields[7] if len(fields) > 7 else "-"))
            url = host + target
            if url in urls:
                repeated += 1
            urls.add(url)
    times.sort()
    short, smallest = 0, None
    for arrivals in by_host.values():
        arrivals.sort()
        for a, b in zip(arrivals, arrivals[1:]):
            short += b - a < delay_ns
            smallest = b - a if smallest is None else min(smallest, b - a)
    return times, repeated, short, smallest, urls


def pages_per_second(times, start_ns, end_ns):
    """Page requests in [start, end) per second, in all and by sending partition."""
    ns = [t for t, _ in times]
    i, j = bisect.bisect_left(ns, start_ns), bisect.bisect_left(ns, end_ns)
    dt = (end_ns - start_ns) / 1e9
    by = collections.Counter(p for _, p in times[i:j])
    return (j - i) / dt, {p: n / dt for p, n in sorted(by.items())}


def reshard(args, checks, cluster, rec, partitions):
    """Restarts the scheduler with --partitions `partitions` and waits until the layout is
    steady at that count. Returns the last `crawlctl partitions` reply, the scheduler's
    "resharding done" line, its resharding lines and the seconds the restart took (from the
    SIGTERM until the new process serves)."""
    t0 = time.monotonic()
    offset, code = cluster.restart_scheduler(["--partitions", str(partitions),
                                              "--reshard-settle", args.settle])
    restart_s = time.monotonic() - t0
    checks.check(code == 0, f"the scheduler drained and exited 0 before its restart: {code}")
    deadline = time.monotonic() + args.move_timeout
    status = None
    last_print = time.monotonic()
    while True:
        status = rec.sample(partitions=True) or status
        if status and status.get("phase") == "steady" and \
                status.get("partition_count") == partitions:
            break
        if time.monotonic() > deadline:
            tail = cluster.procs[("scheduler", 0)].log()[offset:].splitlines()[-15:]
            raise Fatal(f"the reshard to {partitions} partitions did not finish within "
                        f"{args.move_timeout:.0f} s; last status {status}; the scheduler's log "
                        f"ends:\n  " + "\n  ".join(tail))
        if status and time.monotonic() - last_print >= 10:
            last_print = time.monotonic()
            print(f"  {status.get('phase')}: {as_int(status.get('hosts_moved')):,} hosts, "
                  f"{as_int(status.get('urls_moved')):,} URLs moved, "
                  f"{as_int(status.get('hosts_left')):,} left, "
                  f"{as_int(status.get('held_urls')):,} held", flush=True)
        time.sleep(1.0)
    done_line = cluster.log_line_since("scheduler", offset, "resharding done:")
    progress = [line.split("] ", 1)[-1] for line in
                cluster.procs[("scheduler", 0)].log()[offset:].splitlines()
                if "resharding" in line]
    return status, done_line, progress, restart_s


def paused_move(args, checks, cluster, rec):
    """The mover alone: the collection paused, its leases handed back (or, where a hand-back
    failed, expired: the frontier's lease_duration is 2 minutes), then 3 -> 2."""
    cluster.ctl("collections", "pause", COLLECTION)
    t0 = time.monotonic()
    in_flight = []

    def idle():
        rec.sample()
        s = rec.stats_now()
        if s is None:
            return None
        in_flight.append((round(time.monotonic() - t0, 1), as_int(s.get("in_flight_urls"))))
        return s if in_flight[-1][1] == 0 else None
    try:
        paused = wait_until(idle, 180, "the paused collection's leases to end", poll_s=2.0)
    except Fatal as e:
        raise Fatal(f"{e}; URLs on lease (s after the pause, URLs): {in_flight}") from None
    print(f"reshard bench: collection paused, no URL on lease after {time.monotonic() - t0:.0f} s, "
          f"{as_int(paused.get('queued_urls')):,} URLs queued; restarting the scheduler with "
          f"--partitions 2", flush=True)
    status, done_line, progress, _ = reshard(args, checks, cluster, rec, 2)
    time.sleep(2)
    return dict(move_figures(status), status=status, done_line=done_line,
                scheduler_log=progress, stats_before=paused, stats_after=rec.stats_now(),
                in_flight_after_pause=in_flight)


def move_figures(status):
    """Hosts and URLs moved, and the moving phase (started -> flipped) on the scheduler's clock."""
    moving_s = (wall_to_monotonic_ns(status.get("flipped")) -
                wall_to_monotonic_ns(status.get("started"))) / 1e9
    hosts, urls = as_int(status.get("hosts_moved")), as_int(status.get("urls_moved"))
    return {"hosts_moved": hosts, "urls_moved": urls, "moving_s": moving_s,
            "hosts_per_s": hosts / moving_s if moving_s > 0 else None,
            "urls_per_s": urls / moving_s if moving_s > 0 else None,
            "held_delivered": as_int(status.get("held_delivered"))}


def longest_pause(times, start_ns, end_ns):
    """The longest time in [start, end] with no page request: (seconds, when it began)."""
    ns = [start_ns] + [t for t, _ in times if start_ns <= t <= end_ns] + [end_ns]
    gap, at = max((b - a, a) for a, b in zip(ns, ns[1:]))
    return gap / 1e9, at


def per_second(times, start_ns):
    """[seconds after start_ns, requests sent by partition 0, 1, 2] for each second from start_ns
    to the last request."""
    counts = collections.defaultdict(lambda: [0, 0, 0])
    for ns, partition in times:
        if ns >= start_ns and partition in ("0", "1", "2"):
            counts[(ns - start_ns) // 1_000_000_000][int(partition)] += 1
    last = max(counts, default=-1)
    return [[t] + counts.get(t, [0, 0, 0]) for t in range(last + 1)]


def run(args, checks, out):
    delay_ns = int(args.delay * 1e9)
    sim = Websim(args.websim, lambda *p: os.path.join(out, *p), args.hosts, args.pages,
                 args.seed, extra_args=["--threads", "2"], max_seconds=args.max_seconds)
    fetcher_args = ["--allow-network", "127.0.0.0/8", "--connect-to", "", "--min-delay",
                    f"{delay_ns // 1_000_000}ms", "--delay-factor", "0",
                    "--max-connections-per-host", "1", "--partition-header", "--timeout", "10s"]
    settle = ["--reshard-settle", args.settle]
    cluster = None
    result = {"params": {k: v for k, v in vars(args).items()
                         if k not in ("crawlerd", "crawlctl", "websim")}}
    try:
        t0 = time.monotonic()
        sim.start()
        result["websim_start_s"] = time.monotonic() - t0
        seeds_file = os.path.join(out, "pages.txt")
        urls = write_seeds(sim.truth_file, seeds_file)
        result["urls_seeded"] = urls
        fetcher_args[3] = f"127.0.0.1:{sim.port}"
        # Three partitions' processes, the scheduler routing by 2: the layout starts at 2.
        cluster = Cluster(args.crawlerd, args.crawlctl, os.path.join(out, "cluster"), 3,
                          fetcher_args=fetcher_args,
                          scheduler_args=["--partitions", "2", *settle])
        cluster.start()
        rec = Recorder(cluster, sim, args.stats_every)
        coll = os.path.join(out, "collection.yaml")
        write_collection(coll, sim.seeds(), args.delay)
        cluster.ctl("collections", "create", "-f", coll)
        t = time.monotonic()
        added = cluster.ctl("--timeout", f"{int(args.seed_timeout)}s", "seeds", "add",
                            COLLECTION, seeds_file, json_out=True,
                            timeout_s=args.seed_timeout + 30)
        result["seeding_s"] = time.monotonic() - t
        result["seeds_reply"] = json.loads(added.stdout)
        print(f"reshard bench: {urls:,} URLs added with crawlctl seeds add in "
              f"{result['seeding_s']:.1f} s ({urls / result['seeding_s']:,.0f} URLs/s)",
              flush=True)
        rec.wait(args.warmup + args.window)
        restart_ns = monotonic_ns()
        before = rec.stats_now()
        rec.sample()
        result["stats_before"] = before
        print(f"reshard bench: restarting the scheduler with --partitions 3; "
              f"{as_int(before and before.get('queued_urls')):,} URLs queued, "
              f"{as_int(before and before.get('pages')):,} pages fetched", flush=True)
        status, done_line, progress, result["scheduler_restart_s"] = reshard(args, checks,
                                                                             cluster, rec, 3)
        result["scheduler_log"] = progress
        rec.wait(args.window)
        after = rec.stats_now()
        result["stats_after"] = after
        if args.paused_move:
            try:
                result["paused_move"] = paused_move(args, checks, cluster, rec)
            except Fatal as e:
                # The live move's figures stand without it.
                checks.fail(f"the paused move 3 -> 2: {e}")
        if args.smoke:
            # Correctness at small size: the crawl goes on to its end after the move.
            def finished():
                rec.sample()
                s = rec.stats_now()
                return s if s and s.get("exhausted") else None
            wait_until(finished, args.finish_timeout, "the crawl's end", poll_s=1.0)
            time.sleep(2.5)  # the fetchers' last reports
            result["stats_final"] = rec.stats_now()
    finally:
        codes = cluster.stop() if cluster is not None else {}
        sim.stop()
    checks.check(all(c == 0 for c in codes.values()),
                 f"every process drained and exited 0 on SIGTERM: {codes}")

    # The phases, on the scheduler's clock brought to CLOCK_MONOTONIC.
    started = wall_to_monotonic_ns(status.get("started"))
    flipped = wall_to_monotonic_ns(status.get("flipped"))
    finished_ns = wall_to_monotonic_ns(status.get("finished"))
    move = move_figures(status)
    hosts, moved_urls = move["hosts_moved"], move["urls_moved"]
    m = DONE.search(done_line or "")
    checks.check(m is not None and int(m.group(1)) == 3,
                 f"the scheduler logged the reshard done with 3 partitions: {done_line}")
    checks.check(hosts > 0 and moved_urls > 0, f"hosts and URLs moved: {hosts}, {moved_urls}")
    times, repeated, short, smallest, fetched = read_requests(sim.log_file, delay_ns)
    phases = [("before (2 partitions)", restart_ns - int(args.window * 1e9), restart_ns),
              ("scheduler restart", restart_ns, started),
              ("moving", started, flipped),
              ("settling (3 partitions)", flipped, finished_ns),
              ("after (3 partitions)", finished_ns, finished_ns + int(args.window * 1e9))]
    rows = []
    for name, a, b in phases:
        rate, by = pages_per_second(times, a, b)
        rows.append({"phase": name, "seconds": (b - a) / 1e9, "pages_per_s": rate,
                     "pages_per_s_by_partition": by, "cores": rec.cores(a, b)})
    # Every fetcher restarts its crawl at the flip: the crawl's longest pause.
    pause_s, pause_at = longest_pause(times, restart_ns, finished_ns + int(args.window * 1e9))
    result["longest_pause"] = {"seconds": pause_s, "after_flip_s": (pause_at - flipped) / 1e9}
    seen_before = as_int((before or {}).get("seen_urls"))
    seen_after = as_int((after or {}).get("seen_urls"))
    checks.check(seen_after >= seen_before > 0,
                 f"URLs known to the partitions (stats seen): {seen_before:,} before the move, "
                 f"{seen_after:,} after")
    checks.check(repeated == 0, f"page URLs fetched more than once: {repeated}")
    checks.check(short == 0, f"request gaps to one host shorter than the delay "
                             f"({args.delay * 1000:.0f} ms): {short}; smallest "
                             f"{(smallest or 0) / 1e6:.1f} ms")
    paused = result.get("paused_move")
    if paused:
        # Nothing is fetched while paused: the move must keep every URL queued and known.
        q0, q1 = (as_int(paused[k].get("queued_urls")) for k in ("stats_before", "stats_after"))
        s0, s1 = (as_int(paused[k].get("seen_urls")) for k in ("stats_before", "stats_after"))
        checks.check(q0 == q1 and s0 == s1 and paused["hosts_moved"] > 0,
                     f"the paused collection's move 3 -> 2 kept its URLs: queued {q0:,} -> "
                     f"{q1:,}, seen {s0:,} -> {s1:,} ({paused['hosts_moved']:,} hosts moved)")
    if args.smoke:
        final = result.get("stats_final") or {}
        with open(seeds_file) as f:
            wanted = {line.strip().split("://", 1)[1] for line in f if line.strip()}
        missing = wanted - fetched
        checks.check(not missing, f"seeded pages never fetched: {len(missing)} of {len(wanted)}, "
                                  f"e.g. {sorted(missing)[:3]}")
        checks.check(as_int(final.get("queued_urls")) == 0 and final.get("exhausted"),
                     f"the crawl ended with nothing queued: {final.get('queued_urls')}")
        by_fetcher = collections.Counter(p for _, p in times)
        checks.check(by_fetcher.get("2", 0) > 0,
                     f"fetcher 2 fetched pages after the move: {dict(by_fetcher)}")
    result.update(move)
    result.update({
        "status": status, "done_line": done_line,
        "max_held_urls": max((as_int(p.get("held_urls")) for _, p in rec.layouts), default=0),
        "done_s": (finished_ns - started) / 1e9,
        "phases": rows, "pages_repeated": repeated, "short_gaps": short,
        "smallest_gap_ms": (smallest or 0) / 1e6, "seen_before": seen_before,
        "seen_after": seen_after,
        "queued_at_restart": as_int((before or {}).get("queued_urls")),
        # Page requests in each second from the window before on, by sending partition.
        "pages_by_second": per_second(times, restart_ns - int(args.window * 1e9)),
        "timeline": [{"t_s": (t - restart_ns) / 1e9, "pages": as_int(s.get("pages")),
                      "queued": as_int(s.get("queued_urls")),
                      "in_flight": as_int(s.get("in_flight_urls")),
                      "seen": as_int(s.get("seen_urls"))} for t, s in rec.stats],
    })
    return result


def report(args, r):
    base = r["phases"][0]["pages_per_s"]
    print(f"\nweb: websim --hosts {args.hosts} --pages {args.pages} --seed {args.seed}; "
          f"{r['urls_seeded']:,} pages seeded ({r['seeding_s']:.0f} s, "
          f"{r['urls_seeded'] / r['seeding_s']:,.0f} URLs/s); delay {args.delay * 1000:.0f} ms, "
          f"1 connection per host; Redis politeness; --reshard-settle {args.settle}")
    print(f"queued when the scheduler was restarted with --partitions 3: "
          f"{r['queued_at_restart']:,} URLs\n")
    print("| reshard 2 -> 3 | hosts moved | URLs moved | moving phase s | hosts/s | URLs/s "
          "| held URLs delivered | done after s |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| | {r['hosts_moved']:,} | {r['urls_moved']:,} | {r['moving_s']:.1f} | "
          f"{r['hosts_per_s']:,.1f} | {r['urls_per_s']:,.0f} | {r['held_delivered']:,} | "
          f"{r['done_s']:.1f} |")
    print(f"the scheduler said: {r['done_line'].split('] ', 1)[-1] if r['done_line'] else '-'}\n")
    print("| phase | s | pages/s | vs before | by partition 0 / 1 / 2 | crawler cores | CPU ms "
          "/ page | websim cores | others' cores | steal |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in r["phases"]:
        by = row["pages_per_s_by_partition"]
        split = " / ".join(f"{by.get(str(k), 0.0):.0f}" for k in range(3))
        c = row["cores"]
        rate = row["pages_per_s"]
        cores = ("- | - | - | - | -" if c is None else
                 f"{c['crawler']:.2f} | {1000 * c['crawler'] / rate if rate else 0:.2f} | "
                 f"{c['websim']:.2f} | {c['others']:.2f} | {c['steal']:.2f}")
        ratio = f"{rate / base:.2f}" if base else "-"
        print(f"| {row['phase']} | {row['seconds']:.1f} | {rate:.0f} | {ratio} | {split} | "
              f"{cores} |")
    for row in r["phases"]:
        if row["cores"]:
            print(f"  {row['phase']}: crawler cores by role " +
                  ", ".join(f"{role} {c:.2f}" for role, c in row["cores"]["by_role"].items()))
    lp = r["longest_pause"]
    print(f"  the longest time without a page request from the restart on: {lp['seconds']:.1f} s, "
          f"from {lp['after_flip_s']:+.1f} s after the flip")
    print(f"\nURLs known (stats seen): {r['seen_before']:,} before, {r['seen_after']:,} after; "
          f"page URLs fetched twice: {r['pages_repeated']}; request gaps to a host under the "
          f"delay: {r['short_gaps']} (smallest {r['smallest_gap_ms']:.1f} ms); held URLs at "
          f"most {r['max_held_urls']:,}")
    p = r.get("paused_move")
    if p:
        print(f"\nthe mover alone, the collection paused (no lease to wait for), 3 -> 2: "
              f"{p['hosts_moved']:,} hosts and {p['urls_moved']:,} URLs in {p['moving_s']:.1f} s, "
              f"{p['hosts_per_s']:,.1f} hosts/s, {p['urls_per_s']:,.0f} URLs/s; queued "
              f"{as_int(p['stats_before'].get('queued_urls')):,} before, "
              f"{as_int(p['stats_after'].get('queued_urls')):,} after")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--out", default="", help="work directory (default: a new one in /tmp)")
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--pages", type=int, default=135)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay", type=parse_duration_s, default=5.0,
                        help="per-host delay (e.g. 5s, 100ms)")
    parser.add_argument("--settle", default="30s", help="the scheduler's --reshard-settle")
    parser.add_argument("--warmup", type=float, default=60, help="seconds after the seeding")
    parser.add_argument("--window", type=float, default=60,
                        help="seconds measured before the move and after it")
    parser.add_argument("--stats-every", type=float, default=5)
    parser.add_argument("--seed-timeout", type=float, default=1800)
    parser.add_argument("--move-timeout", type=float, default=900)
    parser.add_argument("--finish-timeout", type=float, default=120)
    parser.add_argument("--no-paused-move", dest="paused_move", action="store_false",
                        help="skip the last step (the collection paused, 3 -> 2: the mover "
                             "without leases to wait for)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--smoke", action="store_true",
                        help="under a minute, correctness only (ctest bench.reshard_small): "
                             "100 hosts x 115 pages, 200 ms delay, short windows, --settle 2s; "
                             "the crawl then runs to its end and every page must be fetched once")
    args = parser.parse_args()
    if args.smoke:
        for name, small in (("hosts", 100), ("pages", 115), ("delay", 0.2), ("warmup", 2),
                            ("window", 3), ("settle", "2s"), ("stats_every", 1),
                            ("move_timeout", 60)):
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, small)
        args.paused_move = False
    # websim stops by itself a while after the longest run could last.
    args.max_seconds = (args.seed_timeout + args.warmup + 2 * args.window + args.move_timeout
                        + args.finish_timeout + 600)
    b = args.build_dir
    args.crawlerd = os.path.join(b, "tools", "crawlerd", "crawlerd")
    args.crawlctl = os.path.join(b, "tools", "crawlctl", "crawlctl")
    args.websim = os.path.join(b, "tools", "websim", "websim")
    out = args.out or tempfile.mkdtemp(prefix="bench-reshard-")
    os.makedirs(out, exist_ok=True)
    checks = Checks("bench/distributed/reshard.py")
    try:
        result = run(args, checks, out)
    except (Fatal, ClusterError, subprocess.TimeoutExpired) as e:
        print(f"bench/distributed/reshard.py: {e} (files in {out})", file=sys.stderr)
        return 2
    report(args, result)
    result["checks_failed"] = checks.failures
    for path in [os.path.join(out, "results.json")] + ([args.json] if args.json else []):
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
    rc = checks.exit_code()
    if args.keep or rc != 0:
        print(f"files in {out}")
    else:
        # The results stay; the crawl's data and logs go.
        shutil.rmtree(os.path.join(out, "cluster"), ignore_errors=True)
        for name in ("websim.log", "pages.txt", "truth.tsv"):
            try:
                os.remove(os.path.join(out, name))
            except FileNotFoundError:
                pass
        if not args.out:
            shutil.rmtree(out, ignore_errors=True)
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
