#!/usr/bin/env python3
"""End-to-end test of `crawler crawl` against websim on loopback (docs/websim.md).

Scenarios (--scenario):
  full     one crawl of a 200 x 50 web: every allowed reachable page fetched exactly once, no
           disallowed or nofollow-only URL, no two requests to one host closer than the
           configured delay (from websim's request log), and the crawler's stats JSON and crawl
           log agree with what websim saw.
  resume   the same crawl SIGKILLed at about 40% of the pages, then restarted on the same
           --data-dir: same coverage; only URLs whose leases were outstanding at the kill are
           fetched twice.
  sigterm  a smaller crawl stopped with SIGTERM (exit 0, stats JSON with "complete": false, WARC
           files closed), then resumed to completion without fetching anything twice.
  revisit  a re-visiting crawl (--revisit, --run-for) of pages that change every few seconds:
           it stops by itself at --run-for (exit 0), re-visits every page with conditional GETs
           (304s), detects changes, stays within its re-visit budget and the per-host delay,
           and a second run on the same data dir carries on re-visiting (nothing is new).
           The freshness it achieves is measured by bench/recrawl (a few minutes).
  partitions  the full crawl with --partitions 4 (four frontier partitions and fetchers in one
           process, outlinks exchanged through the routed client): the same checks, plus every
           host fetched only by the fetcher of the partition that owns it (X-Crawler-Partition
           in websim's log, against `crawler inspect partition`).
  reshard  the resume crawl with another partition count at each start: 2 partitions SIGKILLed
           at about 35% of the pages, resumed with 3 and SIGKILLed at about 70%, finished with
           1: same coverage, every page fetched once except leases outstanding at a kill (once
           before it, once after), the delay kept, and in each run every host fetched only by
           its owner under that run's count.
  sitemaps pages only a sitemap lists (some hosts name it in robots.txt, the others only serve
           /sitemap.xml; every sitemap an index of parts) are crawled with sitemap discovery on
           (the default), none with it off, only the named hosts' with `robots`, and one host's
           when its sitemap is given as a seed with discovery off; sitemaps are not pages.
  render   a web of scripted hosts (websim --scripted-hosts: links built by document.write,
           fetched JSON and a client-side router) crawled with --render never, always and auto:
           never reaches exactly the statically linked pages, always and auto every page (auto
           rendering only pages of scripted hosts); every page fetched once and paced; every
           request of the browsers went through the crawler's client (websim only sees the
           crawler: the browser cannot resolve a name), none to the metadata address; each
           hostile page (endless script, memory hog, pop-up storm, dialogs, a page that never
           finishes loading) ends with its outcome in the crawl log and the crawl finishes; the
           browser's processes stay within --browser-memory-bytes (the memory hog's renderer
           killed); the rendered crawl, packaged as a WACZ, replays in ReplayWeb.page with the
           text the pages' scripts built.
  limits   a 5 x 20 web crawled to a page budget (--max-pages 10) and to a depth (--max-depth
           1): the stats JSON has exactly the members docs/configuration.md documents; at the
           budget it is not complete (stopped_by_page_budget, URLs still queued), at the depth
           it is, and urls_rejected_by_limit counts the links past the depth.

Usage: crawl_websim_test.py --crawler BIN --websim BIN --scenario NAME [--keep]
Exit status 0 when every check passed; 1 otherwise (each failed check is printed).
"""

import argparse
import collections
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from crawlertest.e2e import (  # noqa: E402
    Crawl, TreeMemory, Websim, archived_pages, check_coverage, check_crawl_log_pages,
    check_politeness, check_robots_fetches, check_run_partition, crawl_command, is_page_request,
    is_sitemap_request, is_subresource_request, monotonic_ns, read_crawl_log, read_stats,
    read_warc_records, run_scenario, url_of, wait_until)

# The per-host delay of every crawl here (--min-delay, with --delay-factor 0). Request arrivals
# at websim must be at least this far apart per host, with no slack: the crawler spaces
# politeness claims this far apart and, after a response, starts the next delay only then, so
# the spacing it grants is the delay plus a round trip.
DELAY_MS = 50

# URLs of one host that the standalone crawl leases at once (LeaseAheadPerHost in
# services/standalone/standalone_crawl.cc for one connection per host and a 50 ms delay; the
# frontier's max_in_flight_per_host). A SIGKILL can only cause refetches of leased, not yet durably completed
# URLs, so at most this many per host.
LEASES_PER_HOST = 4

# Concurrent transfers of the killed crawl (--max-in-flight); reported next to the refetches.
RESUME_MAX_IN_FLIGHT = 64

CRAWL_TIMEOUT_S = 300


class LogProgress:
    """Counts page requests in websim's request log as it grows (read incrementally)."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.pages = 0

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return self.pages
        end = data.rfind(b"\n") + 1  # whole lines only
        for line in data[:end].split(b"\n")[:-1]:
            fields = line.split(b"\t")
            if len(fields) > 2 and fields[2] != b"/robots.txt" \
                    and not re.fullmatch(rb"/sitemap(-[1-9][0-9]*)?\.xml", fields[2]) \
                    and not fields[2].startswith(b"/__websim/"):
                self.pages += 1
        self.offset += end
        return self.pages


def stop_crawl_at(checks, crawl, sim, fraction, expected_pages, sig):
    """Sends `sig` to the crawl once websim has seen `fraction` of the pages requested. Returns
    the number of page requests seen then, or None if the crawl ended first."""
    progress = LogProgress(sim.log_file)
    target = int(fraction * expected_pages)

    def reached():
        if not crawl.running():
            return "exited"
        return progress.poll() >= target

    if wait_until(reached, CRAWL_TIMEOUT_S, f"{target} page requests in websim's log") == "exited":
        checks.fail(f"the crawl ended (exit {crawl.proc.returncode}) before {target} pages were "
                    f"requested; cannot interrupt it: {crawl.stderr()}")
        return None
    crawl.signal(sig)
    return progress.pages


def check_duplicates_none(checks, counts):
    repeated = {u: n for u, n in counts.items() if n > 1}
    checks.check(not repeated, f"{len(repeated)} pages requested more than once, e.g. "
                               f"{sorted(repeated.items())[:5]}")
    return len(repeated)


def check_log_matches_requests(checks, log_lines, requests, what):
    """Every line with an HTTP status is one request websim answered, and vice versa."""
    logged = collections.Counter((l.url, l.status) for l in log_lines if l.status > 0)
    served = collections.Counter((url_of(r), r.status) for r in requests)
    only_log = logged - served
    only_served = served - logged
    checks.check(not only_log and not only_served,
                 f"{what}: crawl log lines with a status and websim's requests differ: "
                 f"{sum(only_log.values())} only in the log (e.g. {list(only_log)[:3]}), "
                 f"{sum(only_served.values())} only in websim's log "
                 f"(e.g. {list(only_served)[:3]})")


def check_archive(checks, warc_dir, expected, what, once):
    """Every page has a response record in a finished WARC file (exactly one if `once`), and no
    file is left open: records in a `*.open` file are invisible to tools that take *.warc.gz,
    while the frontier counts their pages as done and never fetches them again."""
    captures, still_open = archived_pages(checks, warc_dir, what)
    missing = expected - set(captures)
    only_open = set()
    for name in still_open:
        try:
            only_open |= {u for kind, u in read_warc_records(os.path.join(warc_dir, name))
                          if kind in ("response", "revisit")} & missing
        except (ValueError, OSError, EOFError, KeyError) as e:
            print(f"  {what}: {name} is not readable to its end: {e}", flush=True)
    checks.check(not still_open,
                 f"{what}: WARC files left open (not *.warc.gz): {still_open}; "
                 f"{len(only_open)} pages are archived only there")
    checks.check(not missing, f"{what}: {len(missing)} of {len(expected)} pages have no "
                              f"response record in a finished WARC file, e.g. "
                              f"{sorted(missing)[:3]}")
    if once:
        repeated = {u: n for u, n in captures.items() if u in expected and n > 1}
        checks.check(not repeated, f"{what}: {len(repeated)} pages archived more than once, "
                                   f"e.g. {sorted(repeated.items())[:3]}")


def check_partition_owners(checks, crawler, requests, partitions):
    """Every host was fetched by one partition's fetcher only, the one that owns it
    (`crawler inspect partition`), and every partition fetched some host."""
    seen = collections.defaultdict(set)
    for r in requests:
        seen[r.host].add(r.partition)
    hosts = sorted(seen)
    out = subprocess.run([crawler, "inspect", "partition", "--partitions", str(partitions)] + hosts,
                         capture_output=True, text=True, timeout=60)
    if not checks.check(out.returncode == 0, f"inspect partition failed: {out.stderr}"):
        return
    owner = {}
    for line in out.stdout.splitlines():
        k, host = line.split("\t")
        owner[host] = k
    wrong = [h for h in hosts if seen[h] != {owner.get(h)}]
    checks.check(not wrong, f"{len(wrong)} hosts fetched by another partition than their owner "
                            f"or by several, e.g. {[(h, sorted(seen[h]), owner.get(h)) for h in wrong[:3]]}")
    used = {k for h in hosts for k in seen[h]}
    checks.check(used == {str(k) for k in range(partitions)},
                 f"partitions that fetched: {sorted(used)}, expected 0..{partitions - 1}")


def scenario_partitions(args, checks, work):
    scenario_full(args, checks, work, partitions=4)


def scenario_full(args, checks, work, partitions=1):
    sim = Websim(args.websim, work, hosts=200, pages=50, seed=11)
    crawl = None
    extra = ("--partitions", str(partitions), "--partition-header") if partitions > 1 else ()
    try:
        sim.start()
        stats_path = work("stats.json")
        t0 = time.monotonic()
        crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                                    stats_path, DELAY_MS, extra), work("crawl.stderr"))
        rc = crawl.wait(CRAWL_TIMEOUT_S)
        elapsed = time.monotonic() - t0
    finally:
        if crawl is not None:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")
    if not checks.check(rc == 0, f"crawl exited with {rc}: {crawl.stderr()}"):
        return

    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    requests = sim.requests()
    counts, coverage = check_coverage(checks, requests, truth)
    duplicates = check_duplicates_none(checks, counts)
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS)
    robots = check_robots_fetches(checks, requests, sim.hosts)

    stats = read_stats(stats_path)
    checks.check(stats.get("complete") is True, f"stats: complete is {stats.get('complete')}")
    checks.check(stats.get("pages") == len(expected),
                 f"stats: pages {stats.get('pages')}, truth has {len(expected)}")
    checks.check(stats.get("errors") == 0, f"stats: errors {stats.get('errors')}: "
                                           f"{stats.get('errors_by_class')}")
    checks.check(stats.get("robots_txt_fetches") == sim.hosts,
                 f"stats: robots_txt_fetches {stats.get('robots_txt_fetches')}, "
                 f"expected one per host ({sim.hosts})")
    checks.check(stats.get("fetches") == len(requests),
                 f"stats: fetches {stats.get('fetches')}, websim answered {len(requests)}")
    # Every disallowed URL of websim's truth is a private leaf of its host's link tree, linked
    # from its (public, fetched) parent without nofollow, so the crawler discovers each one and
    # must decide "robots_denied" for each exactly once.
    checks.check(stats.get("robots_denied") == len(truth["disallowed"]),
                 f"stats: robots_denied {stats.get('robots_denied')}, truth lists "
                 f"{len(truth['disallowed'])} disallowed URLs")
    # websim's pages are distinct (seeded text per page): no exact or near duplicate exists.
    checks.check(stats.get("duplicates") == 0, f"stats: duplicates {stats.get('duplicates')}")
    checks.check(stats.get("queued") == 0, f"stats: queued {stats.get('queued')} after a "
                                           f"complete crawl")

    log_lines, malformed = read_crawl_log(os.path.join(work("data"), "crawl.log"))
    checks.check(not malformed, f"crawl log: {len(malformed)} malformed lines, e.g. "
                                f"{malformed[:3]}")
    check_crawl_log_pages(checks, log_lines, expected, "crawl log")
    check_log_matches_requests(checks, log_lines, requests, "crawl log")
    denied = collections.Counter(l.url for l in log_lines if l.outcome == "robots_denied")
    checks.check(set(denied) == truth["disallowed"] and max(denied.values(), default=1) == 1,
                 f"crawl log: robots_denied lines ({sum(denied.values())}, "
                 f"{len(set(denied) - truth['disallowed'])} not in the truth) are not the "
                 f"truth's {len(truth['disallowed'])} disallowed URLs, once each")
    robots_lines = sum(1 for l in log_lines if l.outcome == "robots")
    checks.check(robots_lines == sim.hosts, f"crawl log: {robots_lines} robots lines, "
                                            f"expected {sim.hosts}")
    # Sitemaps are read by default (sitemap_discovery robots+well-known): every websim host
    # names its /sitemap.xml in robots.txt, read once, and not a page.
    sitemap_lines = collections.Counter(l.url for l in log_lines if l.outcome == "sitemap")
    want_sitemaps = {f"http://{host}/sitemap.xml" for host in {r.host for r in requests}}
    checks.check(set(sitemap_lines) == want_sitemaps and set(sitemap_lines.values()) == {1},
                 f"crawl log: sitemap lines {len(sitemap_lines)} distinct, "
                 f"{sum(sitemap_lines.values())} in all; expected one per host ({sim.hosts})")
    checks.check(stats.get("sitemap_fetches") == sim.hosts,
                 f"stats: sitemap_fetches {stats.get('sitemap_fetches')}, expected {sim.hosts}")
    accounted = len(expected) + robots_lines + sum(sitemap_lines.values()) + sum(denied.values())
    checks.check(len(log_lines) == accounted,
                 f"crawl log: {len(log_lines)} lines, expected {accounted} (pages + robots.txt "
                 f"+ sitemaps + robots-denied); outcomes: "
                 f"{collections.Counter(l.outcome for l in log_lines)}")
    check_archive(checks, work("data", "warc"), expected, "full crawl", once=True)
    if partitions > 1:
        check_partition_owners(checks, args.crawler, requests, partitions)
        checks.check(stats.get("partitions") == partitions,
                     f"stats: partitions {stats.get('partitions')}")
        checks.check(stats.get("outlinks_exchanged", 0) > 0,
                     f"stats: no outlink crossed partitions: {stats.get('outlinks_exchanged')}")

    print(f"{'full' if partitions == 1 else f'partitions={partitions}'}: {sim.hosts} hosts x {sim.pages} pages; coverage {coverage:.2f}% "
          f"({len(expected)} pages), {len(requests)} requests ({robots} robots.txt), "
          f"{duplicates} pages fetched twice, robots-denied {stats.get('robots_denied')}, "
          f"min gap {min_gap / 1e6:.3f} ms over {gap_count} gaps, crawl {elapsed:.1f} s",
          flush=True)


def restart_until_done(args, checks, work, cmd, runs, label, attempts=3):
    """Restarts the crawl on the same data directory until it exits 0 (bounded). Each start is
    appended to `runs` (Crawl objects). Returns the stats of the last run, or None."""
    for attempt in range(attempts):
        crawl = Crawl(cmd, work(f"crawl.{label}.{attempt}.stderr"))
        runs.append(crawl)
        try:
            rc = crawl.wait(CRAWL_TIMEOUT_S)
        finally:
            crawl.kill()
        if rc == 0:
            return read_stats(cmd[cmd.index("--stats-json") + 1])
        # A restarted crawl should finish in one go; every extra attempt is a failure.
        checks.fail(f"{label}: restart {attempt + 1} exited with {rc}: {crawl.stderr()}")
    return None


def check_repeats_across_runs(checks, requests, counts, run_starts):
    """Pages fetched twice: only by a killed run and then its successor, at most the leases one
    host can hold per host and kill. Returns the number of such pages and of their hosts."""
    runs_of = collections.defaultdict(list)
    for r in requests:
        if is_page_request(r):
            runs_of[url_of(r)].append(sum(1 for s in run_starts if r.ns >= s))
    repeated = {u for u, n in counts.items() if n > 1}
    bad = {u: runs_of[u] for u in repeated
           if len(runs_of[u]) != 2 or sorted(runs_of[u])[1] != sorted(runs_of[u])[0] + 1}
    checks.check(not bad, f"{len(bad)} pages fetched twice other than once before a kill and "
                          f"once after, e.g. {sorted(bad.items())[:5]}")
    per_host = collections.Counter(u.split("/")[2] for u in repeated)
    bound = LEASES_PER_HOST * len(run_starts)
    over = {h: n for h, n in per_host.items() if n > bound}
    checks.check(not over, f"hosts with more refetched pages than leases a host can hold at "
                           f"{len(run_starts)} kill(s) ({bound}): {sorted(over.items())[:5]}")
    # The total is not bounded by --max-in-flight: that limits HTTP transfers, while a lease
    # stays outstanding until its completion is durable, after the page was processed (parsed,
    # deduped, archived) and flushed. With processing behind the fetches, every outstanding lease
    # of a host may already have been fetched at the kill (measured: all 4 of every host on a
    # busy machine), so LEASES_PER_HOST x hosts is the bound the design gives.
    return len(repeated), len(per_host)


def check_runs(checks, sim, truth, runs):
    """The checks of a crawl run several times on one data dir (each run after the previous
    ended): every request within a run, coverage, repeats only across a kill. Returns the runs'
    start times (but the first's), websim's requests, the counts per page, the coverage and the
    pages fetched twice with their hosts."""
    run_starts = [c.started_ns for c in runs[1:]]
    requests = sim.requests()
    check_run_partition(checks, requests, run_starts)
    counts, coverage = check_coverage(checks, requests, truth)
    repeated, repeated_hosts = check_repeats_across_runs(checks, requests, counts, run_starts)
    return run_starts, requests, counts, coverage, repeated, repeated_hosts


def scenario_resume(args, checks, work):
    sim = Websim(args.websim, work, hosts=200, pages=50, seed=12)
    runs = []
    final_stats = None
    try:
        sim.start()
        truth, _ = sim.truth()
        expected = truth["page"] | truth["seed"]
        cmd = crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                            work("stats.json"), DELAY_MS,
                            ["--max-in-flight", str(RESUME_MAX_IN_FLIGHT)])
        t0 = time.monotonic()
        first = Crawl(cmd, work("crawl.first.stderr"))
        runs.append(first)
        try:
            seen_at_kill = stop_crawl_at(checks, first, sim, 0.4, len(expected), signal.SIGKILL)
            first.wait(60)
        finally:
            first.kill()
        if seen_at_kill is None:
            return
        checks.check(first.proc.returncode == -signal.SIGKILL,
                     f"the first crawl ended with {first.proc.returncode}, not by SIGKILL")
        final_stats = restart_until_done(args, checks, work, cmd, runs, "resume")
        elapsed = time.monotonic() - t0
    finally:
        for crawl in runs:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")
    if final_stats is None:
        return

    run_starts, requests, counts, coverage, repeated, repeated_hosts = check_runs(
        checks, sim, truth, runs)
    first_request = {}
    for r in requests:
        first_request.setdefault(url_of(r), r.ns)
    refetched = [u for u, n in counts.items() if n > 1]
    oldest_ms = max(((runs[0].signalled_ns - first_request[u]) / 1e6 for u in refetched),
                    default=0)
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, run_starts)
    check_robots_fetches(checks, requests, sim.hosts, run_starts)

    checks.check(final_stats.get("complete") is True,
                 f"stats after resume: complete is {final_stats.get('complete')}")
    last_run_pages = sum(1 for r in requests
                         if is_page_request(r) and r.ns >= run_starts[-1])
    checks.check(final_stats.get("pages") == last_run_pages,
                 f"stats after resume: pages {final_stats.get('pages')}, websim saw "
                 f"{last_run_pages} page requests from that run")
    checks.check(final_stats.get("errors") == 0,
                 f"stats after resume: errors {final_stats.get('errors_by_class')}")
    # The killed process's stdio buffer of the crawl log is lost (lines, not state), but what
    # reached the file must stay parseable after the resumed process appends to it.
    log_lines, malformed = read_crawl_log(os.path.join(work("data"), "crawl.log"))
    checks.check(not malformed, f"crawl log after SIGKILL and resume: {len(malformed)} malformed "
                                f"lines, e.g. {malformed[:3]}")
    check_archive(checks, work("data", "warc"), expected, "resumed crawl", once=False)

    before_kill = sum(1 for r in requests if is_page_request(r) and r.ns < run_starts[0])
    print(f"resume: killed at {seen_at_kill} of {len(expected)} pages seen ({before_kill} "
          f"requested by the killed run), {len(runs) - 1} restart(s); coverage {coverage:.2f}%, "
          f"pages fetched twice {repeated} on {repeated_hosts} hosts "
          f"(bound: {LEASES_PER_HOST} leases per host; --max-in-flight was "
          f"{RESUME_MAX_IN_FLIGHT}), oldest refetched request {oldest_ms:.0f} ms before the "
          f"kill, min gap {min_gap / 1e6:.3f} ms over {gap_count} gaps within runs, "
          f"total {elapsed:.1f} s", flush=True)


def scenario_reshard(args, checks, work):
    sim = Websim(args.websim, work, hosts=200, pages=50, seed=13)
    counts_of_runs = [2, 3, 1]
    runs = []
    final_stats = None
    try:
        sim.start()
        truth, _ = sim.truth()
        expected = truth["page"] | truth["seed"]

        def command(partitions):
            return crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                                 work("stats.json"), DELAY_MS,
                                 ["--max-in-flight", str(RESUME_MAX_IN_FLIGHT), "--partitions",
                                  str(partitions), "--partition-header"])

        for partitions, fraction in zip(counts_of_runs[:-1], (0.35, 0.7)):
            crawl = Crawl(command(partitions), work(f"crawl.p{partitions}.stderr"))
            runs.append(crawl)
            try:
                seen = stop_crawl_at(checks, crawl, sim, fraction, len(expected),
                                     signal.SIGKILL)
                crawl.wait(60)
            finally:
                crawl.kill()
            if seen is None:
                return
            checks.check(crawl.proc.returncode == -signal.SIGKILL,
                         f"the crawl with {partitions} partitions ended with "
                         f"{crawl.proc.returncode}, not by SIGKILL: {crawl.stderr()}")
        final_stats = restart_until_done(args, checks, work, command(counts_of_runs[-1]), runs,
                                         "reshard", attempts=1)
    finally:
        for crawl in runs:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")
    if final_stats is None:
        return

    run_starts, requests, counts, coverage, repeated, repeated_hosts = check_runs(
        checks, sim, truth, runs)
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, run_starts)
    bounds = [0] + run_starts + [float("inf")]
    for i, partitions in enumerate(counts_of_runs):
        if partitions > 1:
            check_partition_owners(checks, args.crawler,
                                   [r for r in requests if bounds[i] <= r.ns < bounds[i + 1]],
                                   partitions)
    last_run_pages = sum(1 for r in requests if is_page_request(r) and r.ns >= run_starts[-1])
    checks.check(final_stats.get("complete") is True,
                 f"stats after the last run: complete is {final_stats.get('complete')}")
    checks.check(final_stats.get("pages") == last_run_pages,
                 f"stats after the last run: pages {final_stats.get('pages')}, websim saw "
                 f"{last_run_pages} page requests from that run")
    checks.check(final_stats.get("partitions") == counts_of_runs[-1],
                 f"stats after the last run: partitions {final_stats.get('partitions')}")
    data = work("data")
    leftovers = sorted(n for n in os.listdir(data) if n.startswith("state-"))
    checks.check(not leftovers and not os.path.exists(os.path.join(data, "partitions.moving")),
                 f"partitions left in the data dir after going to 1: {leftovers}")
    print(f"reshard: {' -> '.join(map(str, counts_of_runs))} partitions over {len(runs)} runs; "
          f"coverage {coverage:.2f}%, pages fetched twice {repeated} on {repeated_hosts} "
          f"hosts, min gap {min_gap / 1e6:.3f} ms over {gap_count} gaps within runs",
          flush=True)


def scenario_sigterm(args, checks, work):
    sim = Websim(args.websim, work, hosts=50, pages=30, seed=13)
    runs = []
    stopped_stats = final_stats = None
    try:
        sim.start()
        truth, _ = sim.truth()
        expected = truth["page"] | truth["seed"]
        stats_path = work("stats.json")
        cmd = crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port, stats_path,
                            DELAY_MS)
        first = Crawl(cmd, work("crawl.first.stderr"))
        runs.append(first)
        try:
            seen_at_stop = stop_crawl_at(checks, first, sim, 0.3, len(expected), signal.SIGTERM)
            rc = first.wait(120) if seen_at_stop is not None else None
        finally:
            first.kill()
        if seen_at_stop is None:
            return
        if not checks.check(rc == 0, f"crawl stopped by SIGTERM exited with {rc}: "
                                     f"{first.stderr()}"):
            return
        stopped_stats = read_stats(stats_path)
        _, still_open = archived_pages(checks, work("data", "warc"), "after SIGTERM")
        checks.check(not still_open, f"after SIGTERM: WARC files left open: {still_open}")
        os.rename(stats_path, work("stats.stopped.json"))
        final_stats = restart_until_done(args, checks, work, cmd, runs, "sigterm")
    finally:
        for crawl in runs:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")

    checks.check(stopped_stats.get("complete") is False,
                 f"stats after SIGTERM: complete is {stopped_stats.get('complete')}, "
                 f"expected false")
    checks.check(stopped_stats.get("queued", 0) > 0,
                 f"stats after SIGTERM: queued {stopped_stats.get('queued')}, expected > 0")
    if final_stats is None:
        return
    run_starts = [c.started_ns for c in runs[1:]]
    requests = sim.requests()
    check_run_partition(checks, requests, run_starts)
    first_run_pages = sum(1 for r in requests if is_page_request(r) and r.ns < run_starts[0])
    # A clean stop lets the transfers in flight finish and be recorded, so the stats count
    # exactly what websim answered.
    checks.check(stopped_stats.get("pages") == first_run_pages,
                 f"stats after SIGTERM: pages {stopped_stats.get('pages')}, websim answered "
                 f"{first_run_pages} page requests before the stop")
    counts, coverage = check_coverage(checks, requests, truth)
    # Everything fetched before a clean stop was recorded: nothing is fetched again.
    repeated = check_duplicates_none(checks, counts)
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, run_starts)
    check_robots_fetches(checks, requests, sim.hosts, run_starts)
    checks.check(final_stats.get("complete") is True,
                 f"stats after resume: complete is {final_stats.get('complete')}")
    checks.check(stopped_stats.get("pages", 0) + final_stats.get("pages", 0) == len(expected),
                 f"stats: pages {stopped_stats.get('pages')} + {final_stats.get('pages')} over "
                 f"both runs, truth has {len(expected)}")
    log_lines, malformed = read_crawl_log(os.path.join(work("data"), "crawl.log"))
    checks.check(not malformed, f"crawl log: {len(malformed)} malformed lines, e.g. "
                                f"{malformed[:3]}")
    # A clean stop loses no log line: the log of both runs is the whole crawl.
    check_crawl_log_pages(checks, log_lines, expected, "crawl log of both runs")
    check_log_matches_requests(checks, log_lines, requests, "crawl log of both runs")
    check_archive(checks, work("data", "warc"), expected, "after resume", once=True)
    print(f"sigterm: stopped at {seen_at_stop} of {len(expected)} pages seen "
          f"({stopped_stats.get('pages')} recorded, complete={stopped_stats.get('complete')}), "
          f"resumed in {len(runs) - 1} run(s); coverage {coverage:.2f}%, pages fetched twice "
          f"{repeated}, min gap {min_gap / 1e6:.3f} ms over {gap_count} gaps within runs",
          flush=True)


# The re-visit scenario's settings: 5 hosts x ~8 pages changing every 4 s on average (websim
# --time-scale 1: a simulated day per second), a budget of 10 re-visits per second.
REVISIT_RUN_S = 12
REVISIT_BUDGET_PER_S = 10


def scenario_revisit(args, checks, work):
    sim = Websim(args.websim, work, hosts=5, pages=10, seed=5,
                 extra_args=["--change-rates", "fixed:0.25", "--time-scale", "1"])
    stats = []
    runs = []
    try:
        sim.start()
        truth, _ = sim.truth()
        expected = truth["page"] | truth["seed"]
        for n in range(2):
            stats_path = work(f"stats.{n}.json")
            cmd = crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port, stats_path,
                                DELAY_MS,
                                extra=["--revisit", "--revisit-budget",
                                       f"{REVISIT_BUDGET_PER_S}/s", "--revisit-min-interval",
                                       "500ms", "--revisit-tune-interval", "1s", "--run-for",
                                       f"{REVISIT_RUN_S}s"])
            crawl = Crawl(cmd, work(f"crawl.{n}.stderr"))
            runs.append(crawl)
            rc = crawl.wait(REVISIT_RUN_S + 60)
            if not checks.check(rc == 0, f"run {n}: re-visiting crawl exited with {rc}: "
                                         f"{crawl.stderr()}"):
                return
            stats.append(read_stats(stats_path))
    finally:
        for crawl in runs:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")

    for n, st in enumerate(stats):
        checks.check(st.get("stopped_by_run_for") is True and st.get("complete") is False,
                     f"run {n}: stopped by --run-for and not complete (stats: "
                     f"stopped_by_run_for={st.get('stopped_by_run_for')}, "
                     f"complete={st.get('complete')})")
        checks.check(0 < st.get("changes_detected", 0) < st.get("revisits_scheduled", 0),
                     f"run {n}: changes detected {st.get('changes_detected')} of "
                     f"{st.get('revisits_scheduled')} re-visits")
    requests = sim.requests()
    run_starts = [c.started_ns for c in runs[1:]]
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, run_starts)
    pages = [r for r in requests if is_page_request(r) and r.method == "GET"]
    visits = collections.Counter(url_of(r) for r in pages)
    checks.check(set(visits) == expected,
                 f"fetched exactly the ground truth's pages: {len(set(visits) & expected)} of "
                 f"{len(expected)}, {len(set(visits) - expected)} others")
    # Over two runs of 12 s with a page changing every 4 s, every page comes back several times.
    rarely = [u for u in expected if visits[u] < 3]
    checks.check(not rarely, f"every page re-visited at least twice; {len(rarely)} were not, "
                             f"e.g. {rarely[:3]}")
    not_modified = sum(1 for r in pages if r.status == 304)
    checks.check(not_modified > 0, "re-visits are conditional: websim answered 304 "
                                   f"{not_modified} times")
    # After discovery the re-visit rate is the budget's (the first 3 s of a run discover).
    for n, crawl in enumerate(runs):
        begin = crawl.started_ns + 3 * 10**9
        end = runs[n + 1].started_ns if n + 1 < len(runs) else max(r.ns for r in pages) + 1
        end = min(end, crawl.started_ns + REVISIT_RUN_S * 10**9)
        window = [r for r in pages if begin <= r.ns < end]
        rate = len(window) / ((end - begin) / 1e9)
        checks.check(rate <= REVISIT_BUDGET_PER_S * 1.3,
                     f"run {n}: {rate:.1f} re-visits/s after discovery, budget "
                     f"{REVISIT_BUDGET_PER_S}/s (+30%)")
    second_new = stats[1].get("seen_urls") if len(stats) > 1 else None
    checks.check(second_new == stats[0].get("seen_urls"),
                 f"second run knows the same URLs ({second_new} vs {stats[0].get('seen_urls')})")
    print(f"revisit: {len(pages)} page GETs for {len(expected)} pages over 2 runs, "
          f"{not_modified} answered 304, changes detected "
          f"{[st.get('changes_detected') for st in stats]}, min gap {min_gap / 1e6:.3f} ms over "
          f"{gap_count} gaps", flush=True)


DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")


def documented_summary():
    """member -> its row, of the summary table in docs/configuration.md ("| `a`, `b` | ...")."""
    rows = {}
    with open(os.path.join(DOCS, "configuration.md")) as f:
        text = f.read()
    table = text.split("**Summary** (`stats_json`", 1)[1].split("\n\n", 2)[1]
    for row in table.splitlines():
        if row.startswith("| `"):
            first = row.split(" | ", 1)[0]
            for member in re.findall(r"`([a-z_]+)`", first):
                rows[member] = row
    return rows


def check_documented_summary(checks, stats, what):
    """Every member of `stats` is documented, with the members of its objects (politeness,
    focus); every documented member is there (`refusal` only when every seed was refused)."""
    rows = documented_summary()
    undocumented = sorted(set(stats) - set(rows))
    checks.check(not undocumented, f"{what}: members not in docs/configuration.md: "
                                   f"{undocumented}")
    missing = sorted(set(rows) - set(stats) - {"refusal"})
    checks.check(not missing, f"{what}: documented members missing: {missing}")
    for member in ("politeness", "focus"):
        inner = [k for k in stats.get(member, {}) if f"`{k}`" not in rows.get(member, "")]
        checks.check(not inner, f"{what}: {member}.{inner} not documented")


def crawl_variant(args, checks, work, sim, name, extra, sample_memory=False):
    """One whole crawl of websim's seeds with `extra` arguments (data in data-NAME). Returns
    (its summary, the Crawl) once it exited 0, else None (the failure checked). With
    `sample_memory`, crawl.memory holds the peaks of the crawler's and its children's memory."""
    stats_path = work(f"{name}.json")
    crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, work(f"data-{name}"), sim.port,
                                stats_path, DELAY_MS, extra),
                  work(f"{name}.stderr"))
    crawl.memory = TreeMemory(crawl.proc.pid) if sample_memory else None
    try:
        rc = crawl.wait(CRAWL_TIMEOUT_S)
    finally:
        crawl.kill()
        if crawl.memory is not None:
            crawl.memory.stop()
    if not checks.check(rc == 0, f"{name}: crawl exited with {rc}: {crawl.stderr()}"):
        return None
    return read_stats(stats_path), crawl


def scenario_limits(args, checks, work):
    sim = Websim(args.websim, work, hosts=5, pages=20, seed=14)
    runs = {}
    try:
        sim.start()
        for name, extra in (("budget", ("--max-pages", "10")), ("depth", ("--max-depth", "1"))):
            done = crawl_variant(args, checks, work, sim, name, extra)
            if done is not None:
                runs[name] = done[0]
    finally:
        sim.stop()
    for name, stats in runs.items():
        check_documented_summary(checks, stats, name)
    budget, depth = runs.get("budget", {}), runs.get("depth", {})
    checks.check(budget.get("pages") == 10, f"budget: pages {budget.get('pages')}, want 10")
    checks.check(budget.get("complete") is False and budget.get("stopped_by_page_budget") is True
                 and budget.get("queued", 0) > 0,
                 f"budget: complete {budget.get('complete')}, stopped_by_page_budget "
                 f"{budget.get('stopped_by_page_budget')}, queued {budget.get('queued')}: a "
                 f"crawl stopped by its page budget with URLs queued is not complete")
    checks.check(depth.get("complete") is True and depth.get("stopped_by_page_budget") is False
                 and depth.get("queued") == 0,
                 f"depth: complete {depth.get('complete')}, stopped_by_page_budget "
                 f"{depth.get('stopped_by_page_budget')}, queued {depth.get('queued')}")
    checks.check(depth.get("urls_rejected_by_limit", 0) > 0,
                 f"depth: urls_rejected_by_limit {depth.get('urls_rejected_by_limit')}: the "
                 f"links past --max-depth 1 must be counted")
    print(f"limits: budget crawl pages {budget.get('pages')} queued {budget.get('queued')} "
          f"complete {budget.get('complete')}; depth crawl pages {depth.get('pages')} "
          f"urls_rejected_by_limit {depth.get('urls_rejected_by_limit')} complete "
          f"{depth.get('complete')}", flush=True)


# A rendered page's subresources on websim's scripted hosts: fetched by the crawler's loader for
# the browser, not pages of the collection (docs/websim.md, "Scripted sites").
def websim_serves(port, host, path):
    """Whether websim answers `path` on `host` with 200 (asked over loopback)."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Host": host})
        response = conn.getresponse()
        response.read()
        return response.status == 200
    finally:
        conn.close()


# The browser's memory limit in the render scenario, and what a page may outgrow it by: what the
# hostile memory page allocates (~150-300 MiB/s here) between two of the memory watch's checks,
# plus this test's own sampling interval.
RENDER_BROWSER_MEMORY = 512 << 20
RENDER_MEMORY_SLACK = 192 << 20


def scenario_render(args, checks, work):
    """--render never, always and auto on a web where half the hosts build their links with
    scripts and some serve hostile pages. Sitemaps off: they list every page, rendering or not."""
    sim = Websim(args.websim, work, hosts=6, pages=20, seed=33,
                 extra_args=("--scripted-hosts", "0.5", "--hostile-hosts", "0.5"))
    common = ("--sitemap-discovery", "off", "--render-time", "5s",
              "--browser-memory-bytes", str(RENDER_BROWSER_MEMORY))
    variants = (("never", ("--render", "never")), ("always", ("--render", "always")),
                ("auto", ("--render", "auto")))
    runs = {}
    try:
        sim.start()
        truth, _ = sim.truth()
        host_names = sorted({u.split("/")[2] for u in truth["page"]})
        scripted = {h for h in host_names if websim_serves(sim.port, h, "/_app.js")}
        for name, extra in variants:
            done = crawl_variant(args, checks, work, sim, name, common + extra,
                                 sample_memory=True)
            if done is not None:
                stats, crawl = done
                runs[name] = (stats, crawl.started_ns, monotonic_ns(), crawl.memory)
    finally:
        sim.stop()
    requests = sim.requests()
    pages = truth["page"] | truth["seed"]
    render_only = truth["render_only"]
    hostile = truth["hostile"]
    checks.check(0 < len(scripted) < len(host_names) and render_only and hostile,
                 f"the web needs scripted and plain hosts, render-only and hostile pages: "
                 f"{len(scripted)} of {len(host_names)} hosts scripted, {len(render_only)} "
                 f"render-only pages, {len(hostile)} hostile")
    static_share = len(pages - render_only) / len(pages)
    print(f"render: {len(pages)} pages ({len(render_only)} reachable only by rendering: static "
          f"share {static_share:.3f}), {len(hostile)} hostile, {len(scripted)} of "
          f"{len(host_names)} hosts scripted", flush=True)
    checks.check(not [r for r in requests if r.host.startswith("169.254.")],
                 "a request for the metadata address reached websim")
    for name, _ in variants:
        if name not in runs:
            continue
        stats, begin_ns, end_ns, memory = runs[name]
        mine = [r for r in requests if begin_ns <= r.ns < end_ns]
        navigations = [r for r in mine if is_page_request(r) and not is_subresource_request(r)]
        subresources = [r for r in mine if is_subresource_request(r)]
        counts = collections.Counter(url_of(r) for r in navigations)
        fetched = {u for u in counts if u in pages}
        twice = {u: n for u, n in counts.items() if n > 1}
        checks.check(not twice, f"{name}: {len(twice)} URLs fetched more than once, e.g. "
                                f"{sorted(twice.items())[:3]}")
        check_politeness(checks, navigations, DELAY_MS)
        log_lines, bad = read_crawl_log(work(f"data-{name}", "crawl.log"))
        checks.check(not bad, f"{name}: {len(bad)} malformed crawl log lines")
        rendered = {l.url: l.detail for l in log_lines if "rendered: " in l.detail}
        # The summary's rendering counters add up what the crawl log's lines say of each render:
        # "rendered: OUTCOME, +N links".
        renders = [re.search(r"rendered: (\w+), \+(\d+) links", l.detail) for l in log_lines
                   if "rendered: " in l.detail]
        summary = stats.get("rendering", {})
        logged = {"pages_rendered": len(renders),
                  "rendered_links": sum(int(m.group(2)) for m in renders if m),
                  "renders_cut": sum(1 for m in renders if m and m.group(1) != "rendered")}
        checks.check(all(renders) and {k: summary.get(k) for k in logged} == logged,
                     f"{name}: the summary's rendering {summary} against the crawl log's {logged}")
        if name != "never":
            # The browser started, its memory watch measured it, and in `always` it killed the
            # memory hog's renderer (memory.html's outcome is checked below).
            checks.check(summary.get("browser_launches", 0) >= 1
                         and summary.get("peak_memory_bytes", 0) > 0
                         and (name != "always" or summary.get("memory_kills", 0) >= 1),
                         f"{name}: the summary's browser figures {summary}")
        coverage = len(fetched) / len(pages)
        needing = {u for u in fetched if u.split("/")[2] in scripted}
        print(f"  {name}: {len(fetched)} of {len(pages)} pages (coverage {coverage:.3f}), "
              f"{len(rendered)} pages rendered ({len(needing)} pages of scripted hosts fetched), "
              f"{len(subresources)} subresource requests through the crawler, "
              f"{stats.get('pages')} pages in the summary", flush=True)
        if name == "never":
            checks.check(fetched == pages - render_only,
                         f"never: fetched {len(fetched)} pages, want exactly the "
                         f"{len(pages - render_only)} statically reachable ones")
            checks.check(not rendered and not subresources,
                         f"never: {len(rendered)} pages rendered, {len(subresources)} "
                         f"subresources fetched")
            continue
        want = 0.99 if name == "always" else 0.98
        checks.check(coverage >= want, f"{name}: coverage {coverage:.3f} < {want} "
                                       f"(missing e.g. {sorted(pages - fetched)[:3]})")
        # The browser resolves no name: what websim saw of a render came through the crawler.
        checks.check(subresources, f"{name}: no subresource request reached websim")
        if name == "auto":
            plain = [u for u in rendered if u.split("/")[2] not in scripted]
            checks.check(not plain, f"auto rendered {len(plain)} pages of hosts without scripts, "
                                    f"e.g. {plain[:3]}")
            checks.check(len(rendered) <= 1.2 * len(needing),
                         f"auto rendered {len(rendered)} pages, more than 1.2 x the "
                         f"{len(needing)} that need it")
        if name == "always":
            outcomes = {u.split("/")[-1]: d for u, d in rendered.items() if u in hostile}
            checks.check(set(outcomes) >= {"loop.html", "memory.html", "popups.html",
                                           "metadata.html", "alert.html", "beforeunload.html",
                                           "never-loads.html"},
                         f"always: hostile pages rendered: {sorted(outcomes)}")
            checks.check("script_hung" in outcomes.get("loop.html", ""),
                         f"always: the endless script ended as {outcomes.get('loop.html')}")
            checks.check("memory_limit" in outcomes.get("memory.html", ""),
                         f"always: the memory hog ended as {outcomes.get('memory.html')}")
            check_render_memory(checks, memory)
            for page, detail in sorted(outcomes.items()):
                print(f"    {page}: {detail}", flush=True)
            check_rendered_records(checks, work(f"data-{name}", "warc"), rendered, subresources)
            check_rendered_replay(checks, args, work, work(f"data-{name}", "warc"), rendered)


# Rendered pages replayed in ReplayWeb.page.
REPLAYED_RENDERS = 3


def check_rendered_replay(checks, args, work, warc_dir, rendered):
    """The rendered crawl packaged as a WACZ and replayed in ReplayWeb.page (headless Chromium):
    on pages whose scripts built text the static HTML lacks (the rendered DOM record against the
    response), the replayed page shows that text, so the replay ran the page's scripts on the
    archived scripts and JSON the crawler's loader fetched."""
    import glob
    import zipfile
    from crawlertest import archive, replay
    warcs = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))
    wacz = work("rendered.wacz")
    out = subprocess.run([args.crawler, "warc", "wacz", "--collection", "rendered", "-o", wacz,
                          *warcs], capture_output=True, text=True, timeout=300)
    if not checks.check(out.returncode == 0, f"crawler warc wacz: {out.stderr.strip()}"):
        return
    by_name = {os.path.basename(w): w for w in warcs}
    responses, doms = {}, {}
    with zipfile.ZipFile(wacz) as z:
        for _, ts, j in archive.index_entries(z):
            if j["url"].startswith("urn:rendered:"):
                doms[j["url"][len("urn:rendered:"):]] = j
            elif j.get("mime") == "text/html" and j.get("status") == "200":
                responses[j["url"]] = (ts, j)

    def text_lines(html, url):
        return {" ".join(l.split()) for l in replay.text_lines(args.crawler, html, url, work.path)}

    def record(j):
        return replay.read_record(by_name[j["filename"]], int(j["offset"]), int(j["length"]))[1]

    picked = []
    for url in sorted(u for u, d in rendered.items() if "rendered: rendered" in d):
        if url not in doms or url not in responses:
            continue
        ts, response = responses[url]
        built = text_lines(record(doms[url]), url) - \
            text_lines(replay.http_body(record(response)), url)
        if built:
            picked.append((url, ts, sorted(built, key=len, reverse=True)[:2]))
        if len(picked) == REPLAYED_RENDERS:
            break
    if not checks.check(len(picked) == REPLAYED_RENDERS,
                        f"replay: {len(picked)} rendered pages whose scripts built text"):
        return
    chromium = replay.find_chromium()
    if not checks.check(chromium is not None, "replay: no Chromium"):
        return
    from crawlertest import npm
    rwp = npm.replaywebpage_dir()
    os.makedirs(work("replay-chrome"), exist_ok=True)
    chrome = replay.Chrome(chromium, work("replay-chrome"))
    shown = 0
    try:
        chrome.start()
        with replay.ReplayServer(rwp, wacz, work("replay-site")) as server:
            for url, ts, expected in picked:
                try:
                    _, seconds, _ = replay.replay_page(chrome, server, url, ts, expected)
                    shown += 1
                    print(f"    replay: {url} shows {expected} (built by its scripts) in "
                          f"{seconds:.1f} s", flush=True)
                except replay.ReplayError as e:
                    checks.fail(f"replay of a rendered page: {e}")
    except replay.ChromeUnavailable as e:
        checks.fail(f"replay: {e}")
    finally:
        chrome.close()
    checks.check(shown == len(picked), f"replay: {shown} of {len(picked)} rendered pages showed "
                                       f"the text their scripts built")


def check_render_memory(checks, memory):
    """The browser's processes (the crawler's descendants) stayed within --browser-memory-bytes
    but for the hog's growth in one short check near the limit, and the test's own sampling
    (it reads the processes' memory by itself, a few times a second); the crawler's own memory is
    reported."""
    mib = 1 << 20
    checks.check(memory.samples > 10, f"always: {memory.samples} memory samples")
    checks.check(memory.peak_descendants <= RENDER_BROWSER_MEMORY + RENDER_MEMORY_SLACK,
                 f"always: the browser's processes peaked at {memory.peak_descendants // mib} MiB, "
                 f"over the limit of {RENDER_BROWSER_MEMORY // mib} MiB by more than "
                 f"{RENDER_MEMORY_SLACK // mib} MiB")
    print(f"    memory: crawler peak {memory.peak_self // mib} MiB, its browser's processes peak "
          f"{memory.peak_descendants // mib} MiB (limit {RENDER_BROWSER_MEMORY // mib} MiB), "
          f"together {memory.peak_total // mib} MiB; {memory.samples} samples", flush=True)


def check_rendered_records(checks, warc_dir, rendered, subresources):
    """warcio (an independent reader) reads the rendered crawl's WARC files: one resource record
    of the DOM per rendered page (at urn:rendered:<page>, naming the page's response record),
    and a response record of every subresource websim served."""
    import glob
    import json
    from crawlertest import npm
    files = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))
    result = subprocess.run(
        ["node", npm.warcio_cli(), "index", *files, "--fields",
         "warc-type,warc-target-uri,warc-record-id,warc-refers-to"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    if not checks.check(result.returncode == 0,
                        f"warcio index failed ({result.returncode}): {result.stderr[-1000:]}"):
        return
    records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    responses = {r["warc-record-id"]: r["warc-target-uri"] for r in records
                 if r.get("warc-type") == "response"}
    doms = {r["warc-target-uri"][len("urn:rendered:"):]: r for r in records
            if r.get("warc-type") == "resource"
            and r.get("warc-target-uri", "").startswith("urn:rendered:")}
    without_dom = ("script_hung", "crashed", "memory_limit", "browser_failed")
    with_dom = {u for u, detail in rendered.items()
                if not any(outcome in detail for outcome in without_dom)}
    missing = with_dom - set(doms)
    checks.check(not missing, f"warcio: {len(missing)} rendered pages without a DOM record, "
                              f"e.g. {sorted(missing)[:3]}")
    wrong = [u for u, r in doms.items() if responses.get(r.get("warc-refers-to")) != u]
    checks.check(not wrong, f"warcio: {len(wrong)} DOM records not referring to their page's "
                            f"response, e.g. {wrong[:3]}")
    archived = set(responses.values())
    # slow.js is answered after 60 s, long after its render gave up on it: websim logs the 200
    # it sent to a transfer the crawler had dropped.
    unarchived = {url_of(r) for r in subresources
                  if r.status == 200 and r.target != "/_hostile/slow.js"} - archived
    checks.check(not unarchived, f"warcio: {len(unarchived)} subresources served but not "
                                 f"archived, e.g. {sorted(unarchived)[:3]}")
    print(f"    warcio: {len(records)} records, {len(doms)} rendered DOMs, "
          f"{len(archived)} response URIs", flush=True)


def websim_robots_names_sitemap(port, host):
    """Whether websim's robots.txt of `host` has a Sitemap: line (asked over loopback)."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/robots.txt", headers={"Host": host})
        return b"Sitemap: " in conn.getresponse().read()
    finally:
        conn.close()


def scenario_sitemaps(args, checks, work):
    """Pages only a sitemap lists (websim --sitemap-only) are crawled with sitemap discovery on
    (the default), and only then: not with it off, and with `robots` only on the hosts whose
    robots.txt names the sitemap (the others publish /sitemap.xml only). Sitemaps are big enough
    to be indexes of parts. A sitemap given as a seed (--sitemap) is read with discovery off."""
    hosts, pages, only = 12, 30, 4
    sim = Websim(args.websim, work, hosts=hosts, pages=pages, seed=21,
                 extra_args=("--sitemap-only", str(only), "--sitemap-in-robots", "0.5",
                             "--sitemap-max-urls", "8"))
    runs = {}
    named = set()
    variants = (("default", ()), ("off", ("--sitemap-discovery", "off")),
                ("robots", ("--sitemap-discovery", "robots")),
                ("seed", ("--sitemap-discovery", "off", "--sitemap",
                          "http://h0.websim.test/sitemap.xml")))
    try:
        sim.start()
        host_names = sorted({u.split("/")[2] for u in sim.truth()[0]["page"]})
        named = {h for h in host_names if websim_robots_names_sitemap(sim.port, h)}
        for name, extra in variants:
            done = crawl_variant(args, checks, work, sim, name, extra)
            if done is not None:
                # A run's requests are those websim logged between its start and its exit (the
                # log's clock is CLOCK_MONOTONIC; it is read whole once websim has stopped).
                stats, crawl = done
                runs[name] = (stats, crawl.started_ns, monotonic_ns())
    finally:
        sim.stop()
    truth, _ = sim.truth()
    requests = sim.requests()
    linked = truth["page"] | truth["seed"]
    only_sitemap = truth["sitemap_only"]
    checks.check(len(only_sitemap) == hosts * only,
                 f"truth: {len(only_sitemap)} sitemap-only pages, want {hosts * only}")
    checks.check(0 < len(named) < hosts, f"{len(named)} of {hosts} hosts name their sitemap "
                                         f"in robots.txt: the test needs both kinds")
    for name, _ in variants:
        if name not in runs:
            continue
        stats, begin_ns, end_ns = runs[name]
        mine = [r for r in requests if begin_ns <= r.ns < end_ns]
        fetched = {url_of(r) for r in mine if is_page_request(r) and r.status == 200}
        sitemap_requests = [r for r in mine if is_sitemap_request(r)]
        if name == "default":
            want = linked | only_sitemap
        elif name == "off":
            want = linked
        elif name == "robots":
            want = linked | {u for u in only_sitemap if u.split("/")[2] in named}
        else:
            want = linked | {u for u in only_sitemap if u.split("/")[2] == "h0.websim.test"}
        missing, extra = want - fetched, fetched - want
        checks.check(not missing and not extra,
                     f"{name}: pages fetched differ from the truth: {len(missing)} missing "
                     f"(e.g. {sorted(missing)[:3]}), {len(extra)} extra (e.g. {sorted(extra)[:3]})")
        checks.check(stats.get("pages") == len(want),
                     f"{name}: stats pages {stats.get('pages')}, want {len(want)} (sitemaps are "
                     f"not pages)")
        checks.check(stats.get("sitemap_fetches") == len(sitemap_requests),
                     f"{name}: stats sitemap_fetches {stats.get('sitemap_fetches')}, websim "
                     f"served {len(sitemap_requests)} sitemap requests")
        checks.check(stats.get("fetches") == len(mine),
                     f"{name}: stats fetches {stats.get('fetches')}, websim answered {len(mine)}")
        if name == "off":
            checks.check(not sitemap_requests, f"off: {len(sitemap_requests)} sitemap requests")
        else:
            # Every index was followed into its parts: some part of each read index was asked.
            indexes = {r.host for r in sitemap_requests if r.target == "/sitemap.xml"}
            with_parts = {r.host for r in sitemap_requests if r.target != "/sitemap.xml"}
            checks.check(indexes and indexes == with_parts,
                         f"{name}: sitemap indexes read on {len(indexes)} hosts, parts on "
                         f"{len(with_parts)}")
        print(f"sitemaps {name}: {len(fetched)} pages ({len(fetched & only_sitemap)} of "
              f"{len(only_sitemap)} sitemap-only), {len(sitemap_requests)} sitemap requests, "
              f"stats pages {stats.get('pages')} sitemap_fetches {stats.get('sitemap_fetches')} "
              f"sitemap_urls {stats.get('sitemap_urls')}", flush=True)


SCENARIOS = {"full": scenario_full, "resume": scenario_resume, "sigterm": scenario_sigterm,
             "revisit": scenario_revisit, "partitions": scenario_partitions,
             "limits": scenario_limits, "reshard": scenario_reshard, "render": scenario_render,
             "sitemaps": scenario_sitemaps}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    return run_scenario(args, SCENARIOS, "e2e", "e2e")


if __name__ == "__main__":
    sys.exit(main())
