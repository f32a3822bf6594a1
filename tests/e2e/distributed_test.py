#!/usr/bin/env python3
"""End-to-end tests of the distributed crawl: the four crawlerd roles on loopback
(scripts/cluster.py: N frontier partitions, N fetchers, dedup, the scheduler), driven through
crawlctl, crawling websim.

Scenarios:
  n2, n3     one collection over 200 hosts with N = 2 / 3 partitions: every allowed page fetched
             exactly once, each host only by the fetcher of the partition that owns it
             (X-Crawler-Partition in websim's log against `crawler inspect partition`), no
             politeness or robots.txt violation, the fetchers' politeness timers in Redis (a key
             per host there), every page archived once, the collection's
             statistics (crawlctl stats) match websim's truth, every process drains on SIGTERM
             and exits 0.
  two        two collections at once over the same web (N = 3): each collection fetches every
             page once (its own crawl log), the per-host delay holds across both collections
             (one politeness budget per host, in Redis), both finish.
  revisit    N = 2, a re-visiting collection (policy nutch, asking for far more than the budget)
             over pages that change every 4 s: the partitions' shares of the budget add up to
             it, the re-visits made across both partitions (websim's log) stay within it and
             spend it, re-visits waited for the cap, and the collection's measured spend
             (crawlctl stats) agrees with websim's log.
  faults     N = 2; during the crawl each kind of process is killed with SIGKILL once and
             restarted (a frontier, a fetcher, dedup, the scheduler). Coverage stays 100%, the
             per-host delay holds across the restarts (politeness in Redis),
             refetches stay within the URLs on lease at the kills, the collection and its seeds
             survive, and while the scheduler is down crawlctl answers UNAVAILABLE (exit 3)
             within its deadline instead of hanging.
  freeze     N = 2, 30 hosts x 400 pages, 300 ms delay; frontier 1 is frozen (SIGSTOP) for 60 s
             mid-crawl, once the crawl is at full pace: fetcher 0 fetches at least 80% of its
             pages per second of the 10 s before meanwhile (what it owes frontier 1 is kept on
             disk), logs the outage once and the recovery once, and after the thaw coverage is
             100%, no page is fetched twice and no request to a host follows the previous one
             sooner than the delay (websim's log; the gaps under it are counted and reported).
  frontier_down  the same with frontier 1 killed (SIGKILL) and restarted 25 s later.
  reshard    a crawl's partition count changed while it runs: three frontiers and fetchers
             started, the scheduler routing by 2; at 20% of the pages it is restarted with 3
             (the hosts that move go to partition 2 while the crawl goes on), at 50% with 2
             again, and frontier 1 is killed (SIGKILL) and restarted while hosts move back.
             Coverage 100%, no page fetched twice, no request to a host sooner than the delay
             after the previous one, the statistics equal websim's truth, and each move is
             logged with its figures. A second collection, `rev`, re-visits 10 of the hosts
             (6 of them move); each page is fetched once per collection. After each move every
             page's record (seen entry, fetch and re-visit history, fingerprint) is on its
             host's owner and on no other partition (LookupUrls on each frontier), and the pages
             fetched before the first move whose hosts went to partition 2 and back still carry
             that fetch (and, in `rev`, its re-visit history).
  sitemaps   N = 2, a collection with sitemap discovery off: the linked pages only; then
             `crawlctl seeds add --sitemap` of one host's sitemap: that host's sitemap-only pages
             too (no other sitemap requested), stats pages count them but not the sitemap, and
             `crawlctl explain` shows what the sitemap said of one.

Python 3 standard library, and python3-grpcio for `reshard` (Debian's /usr/bin/python3; stubs
generated at test time); every wait is bounded and every process stopped in a `finally`.
"""

import argparse
import collections
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True

from crawlertest import grpc_stubs  # noqa: E402
from crawlertest.cluster import Cluster, ClusterError  # noqa: E402
from crawl_websim_test import check_duplicates_none, check_partition_owners  # noqa: E402
from crawlertest.e2e import (  # noqa: E402
    Fatal, Websim, archived_pages, cap_excess, check_coverage, check_crawl_log_pages,
    check_politeness, check_robots_fetches, is_page_request, monotonic_ns, politeness_gaps,
    read_crawl_log, revisit_times, run_scenario, url_of, wait_until)

DELAY_MS = 50
CRAWL_TIMEOUT_S = 300


def field(d, name, default=0):
    """A field of crawlctl's JSON (protobuf JSON: lowerCamelCase; snake_case accepted too)."""
    if name in d:
        return d[name]
    parts = name.split("_")
    camel = parts[0] + "".join(p.title() for p in parts[1:])
    return d.get(camel, default)


def as_int(v):
    return int(v) if v not in (None, "") else 0


def fetcher_args(sim_port, extra=(), delay_ms=DELAY_MS):
    # websim answers within milliseconds: a 10 s request timeout bounds how long the slots of a
    # fetcher killed mid-request hold their hosts in Redis (timeout + 30 s).
    return ["--allow-network", "127.0.0.0/8", "--connect-to", f"127.0.0.1:{sim_port}",
            "--min-delay", f"{delay_ms}ms", "--delay-factor", "0", "--partition-header",
            "--report-interval", "1s", "--timeout", "10s", *extra]


def redis_host_keys(cluster):
    """The number of host timers in the cluster's Redis (RESP over a plain socket)."""
    port = int(cluster.address("redis").rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        pattern = b"crawler:politeness:h:*"
        s.sendall(b"*2\r\n$4\r\nKEYS\r\n$%d\r\n%s\r\n" % (len(pattern), pattern))
        data = b""
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
            header, _, rest = data.partition(b"\r\n")
            if header.startswith(b"*") and rest.count(b"\r\n") >= 2 * int(header[1:]):
                break
    return int(data.partition(b"\r\n")[0][1:])


def write_collection(path, name, seeds, extra_lines=()):
    with open(path, "w") as f:
        f.write(f"name: {name}\n")
        for line in extra_lines:
            f.write(line + "\n")
        f.write("seeds:\n")
        for seed in seeds:
            f.write(f"  - {seed}\n")


def stats_of(cluster, name):
    out = cluster.ctl("stats", name, json_out=True, check=False, timeout_s=30)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def state_of(cluster, name):
    out = cluster.ctl("collections", "get", name, json_out=True, check=False, timeout_s=30)
    if out.returncode != 0:
        return None
    return field(json.loads(out.stdout), "state", "")


def wait_finished(cluster, names, timeout_s=CRAWL_TIMEOUT_S):
    """Until every collection is FINISHED (every partition exhausted), and the fetchers have
    reported their last counters. Returns the final stats per collection."""
    def done():
        return all(str(state_of(cluster, n)).endswith("FINISHED") for n in names)
    wait_until(done, timeout_s, f"collections {names} to finish", poll_s=1.0)
    time.sleep(2.5)  # > report_interval: the fetchers' last reports
    return {n: stats_of(cluster, n) for n in names}


def fetcher_logs(cluster, name):
    lines, malformed = [], []
    for k in range(cluster.n):
        path = os.path.join(cluster.dir, f"fetcher-{k}", "logs", f"{name}.log")
        if os.path.exists(path):
            l, m = read_crawl_log(path)
            lines += l
            malformed += m
    return lines, malformed


def archive_captures(checks, cluster, name, what):
    captures = collections.Counter()
    still_open = []
    for k in range(cluster.n):
        d = os.path.join(cluster.dir, f"fetcher-{k}", "warc", name)
        c, o = archived_pages(checks, d, f"{what} fetcher {k}")
        captures.update(c)
        still_open += o
    return captures, still_open


def check_stop_codes(checks, codes):
    bad = {n: c for n, c in codes.items() if c != 0}
    checks.check(not bad, f"processes that did not drain and exit 0 on SIGTERM: {bad}")


def check_stats_against_truth(checks, stats, expected, truth, partitions, what):
    if not checks.check(stats is not None, f"{what}: crawlctl stats failed"):
        return
    checks.check(as_int(field(stats, "pages")) == len(expected),
                 f"{what}: stats pages {field(stats, 'pages')}, truth has {len(expected)}")
    checks.check(as_int(field(stats, "robots_denied")) == len(truth["disallowed"]),
                 f"{what}: stats robots_denied {field(stats, 'robots_denied')}, truth "
                 f"{len(truth['disallowed'])}")
    checks.check(as_int(field(stats, "queued_urls")) == 0 and
                 as_int(field(stats, "in_flight_urls")) == 0,
                 f"{what}: stats queued {field(stats, 'queued_urls')}, in flight "
                 f"{field(stats, 'in_flight_urls')} after the end")
    checks.check(field(stats, "exhausted", False) is True, f"{what}: stats not exhausted")
    checks.check(as_int(field(stats, "partitions_reporting")) == partitions,
                 f"{what}: {field(stats, 'partitions_reporting')} partitions reporting")
    if partitions > 1:
        checks.check(as_int(field(stats, "urls_exchanged")) > 0,
                     f"{what}: no URL exchanged between partitions")


@contextlib.contextmanager
def web_and_cluster(args, checks, work, n, hosts, pages, seed, sim_args=(), scheduler_args=()):
    """websim and a cluster of `n` partitions set to crawl it. On the way out every process is
    drained with SIGTERM and must exit 0; then websim stops (its request log is then whole)."""
    sim = Websim(args.websim, work, hosts=hosts, pages=pages, seed=seed,
                 extra_args=sim_args).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), n,
                      fetcher_args=fetcher_args(sim.port), scheduler_args=scheduler_args)
    try:
        cluster.start()
        yield sim, cluster
    finally:
        codes = cluster.stop()
        sim.stop()
        check_stop_codes(checks, codes)


def scenario_partitions(args, checks, work, n):
    t0 = time.monotonic()
    with web_and_cluster(args, checks, work, n, hosts=200, pages=10, seed=21) as (sim, cluster):
        write_collection(work("coll.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        final = wait_finished(cluster, ["web"])["web"]
        elapsed = time.monotonic() - t0
        hosts_in_redis = redis_host_keys(cluster)
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    requests = sim.requests()
    counts, coverage = check_coverage(checks, requests, truth)
    repeated = check_duplicates_none(checks, counts)
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, wall_clock=True)
    check_robots_fetches(checks, requests, sim.hosts)
    check_partition_owners(checks, args.crawler, requests, n)
    lines, malformed = fetcher_logs(cluster, "web")
    checks.check(not malformed, f"crawl logs: {len(malformed)} malformed lines")
    check_crawl_log_pages(checks, lines, expected, "crawl logs")
    captures, still_open = archive_captures(checks, cluster, "web", "archive")
    checks.check(not still_open, f"WARC files left open: {still_open}")
    missing = expected - set(captures)
    checks.check(not missing, f"{len(missing)} pages not archived, e.g. {sorted(missing)[:3]}")
    twice = {u: c for u, c in captures.items() if c > 1}
    checks.check(not twice, f"{len(twice)} pages archived more than once")
    check_stats_against_truth(checks, final, expected, truth, n, "web")
    checks.check(hosts_in_redis == sim.hosts,
                 f"Redis holds politeness timers of {hosts_in_redis} hosts, not {sim.hosts}")
    print(f"n={n}: {sim.hosts} hosts, {len(expected)} pages, coverage {coverage:.2f}%, "
          f"{len(requests)} requests, {repeated} fetched twice, min gap "
          f"{(min_gap or 0) / 1e6:.3f} ms over {gap_count} gaps, exchanged "
          f"{field(final or {}, 'urls_exchanged')}, suppressed "
          f"{field(final or {}, 'urls_suppressed')}, crawl {elapsed:.1f} s", flush=True)


def scenario_two(args, checks, work):
    n = 3
    with web_and_cluster(args, checks, work, n, hosts=200, pages=8, seed=22) as (sim, cluster):
        for name in ("alpha", "beta"):
            write_collection(work(f"{name}.yaml"), name, sim.seeds())
            cluster.ctl("collections", "create", "-f", work(f"{name}.yaml"))
        listed = cluster.ctl("collections", "list", json_out=True).stdout
        checks.check("alpha" in listed and "beta" in listed, f"collections list: {listed}")
        finals = wait_finished(cluster, ["alpha", "beta"])
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    requests = sim.requests()
    pages = collections.Counter(f"http://{r.host}{r.target}" for r in requests
                                if is_page_request(r))
    checks.check(set(pages) == expected,
                 f"pages fetched differ from the truth: {len(expected - set(pages))} missing, "
                 f"{len(set(pages) - expected)} extra")
    not_twice = {u: c for u, c in pages.items() if c != 2}
    checks.check(not not_twice, f"{len(not_twice)} pages not fetched exactly twice (once per "
                                f"collection), e.g. {sorted(not_twice.items())[:3]}")
    min_gap, gap_count = check_politeness(checks, requests, DELAY_MS, wall_clock=True)
    check_partition_owners(checks, args.crawler, requests, n)
    for name in ("alpha", "beta"):
        lines, malformed = fetcher_logs(cluster, name)
        checks.check(not malformed, f"{name}: malformed crawl log lines")
        check_crawl_log_pages(checks, lines, expected, f"{name} crawl logs")
        check_stats_against_truth(checks, finals[name], expected, truth, n, name)
    print(f"two collections, n={n}: {len(expected)} pages each, {len(requests)} requests, min gap "
          f"{(min_gap or 0) / 1e6:.3f} ms over {gap_count} gaps", flush=True)


def scenario_faults(args, checks, work):
    n = 2
    kills = []
    on_lease_at_kills = 0
    restarts_ns = []
    with web_and_cluster(args, checks, work, n, hosts=200, pages=20, seed=23) as (sim, cluster):
        write_collection(work("coll.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        truth, _ = sim.truth()
        total = len(truth["page"] | truth["seed"])
        plan = [(0.15, "frontier", 1), (0.30, "fetcher", 0), (0.45, "dedup", 0),
                (0.60, "scheduler", 0)]
        for fraction, role, k in plan:
            def reached():
                served = sum(1 for r in sim.requests() if is_page_request(r))
                return served >= fraction * total
            wait_until(reached, CRAWL_TIMEOUT_S, f"{fraction:.0%} of the pages")
            before = stats_of(cluster, "web") or {}
            on_lease_at_kills += as_int(field(before, "in_flight_urls"))
            cluster.kill9(role, k)
            kills.append(f"{role}-{k}")
            if role == "scheduler":
                t0 = time.monotonic()
                out = cluster.ctl("--timeout", "3s", "stats", "web", check=False, timeout_s=60)
                took = time.monotonic() - t0
                checks.check(out.returncode == 3,
                             f"crawlctl with the scheduler down exited {out.returncode} "
                             f"(want 3, UNAVAILABLE): {out.stderr.strip()}")
                checks.check("UNAVAILABLE" in out.stderr or "reach" in out.stderr,
                             f"crawlctl's error does not say the server is unavailable: "
                             f"{out.stderr.strip()}")
                checks.check(took < 10, f"crawlctl took {took:.1f} s with the scheduler down")
            time.sleep(1.0)
            cluster.restart(role, k)
            restarts_ns.append(time.monotonic_ns())
        final = wait_finished(cluster, ["web"])["web"]
        checks.check(final is not None, "no stats after the faults")
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    requests = sim.requests()
    counts, coverage = check_coverage(checks, requests, truth)
    refetched = sum(c - 1 for c in counts.values() if c > 1)
    checks.check(refetched <= on_lease_at_kills,
                 f"{refetched} refetches, more than the {on_lease_at_kills} URLs on lease at the "
                 f"kills")
    # The politeness timers live in Redis: a restarted fetcher keeps every host's delay, so no
    # gap is excused, not even across the restarts.
    check_politeness(checks, requests, DELAY_MS, wall_clock=True)
    print(f"faults: killed {', '.join(kills)} (SIGKILL, restarted); coverage {coverage:.2f}% of "
          f"{len(expected)} pages, {refetched} refetches (bound: {on_lease_at_kills} on lease at "
          f"the kills)", flush=True)


FREEZE_DELAY_MS = 300
FREEZE_S = 60
DOWN_S = 25
STEADY_S = 15  # the crawl's ramp-up (robots.txt, the first leases) is over by then
BEFORE_S = 10  # the pace before the fault is measured over this long


def partition_rate(requests, partition, start_ns, end_ns):
    """Pages per second fetched by partition `partition`'s fetcher (its X-Crawler-Partition)
    between the two instants."""
    n = sum(1 for r in requests if r.partition == str(partition) and is_page_request(r)
            and start_ns <= r.ns < end_ns)
    return n / ((end_ns - start_ns) / 1e9)


def scenario_freeze(args, checks, work):
    """A frontier frozen (SIGSTOP) for 60 s in the middle of a crawl: the other partition's
    fetcher crawls on at its pace, keeping the outlinks it owes the frozen one, and after it
    thaws every page is fetched once, politely."""
    frontier_outage(args, checks, work, "freeze")


def scenario_frontier_down(args, checks, work):
    """The same with frontier 1 killed (SIGKILL) and restarted 25 s later: its port refuses
    connections meanwhile instead of leaving calls unanswered."""
    frontier_outage(args, checks, work, "down")


def frontier_outage(args, checks, work, kind):
    n = 2
    sim = Websim(args.websim, work, hosts=30, pages=400, seed=25).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), n,
                      fetcher_args=fetcher_args(sim.port, delay_ms=FREEZE_DELAY_MS))
    frozen = None
    try:
        cluster.start()
        write_collection(work("coll.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        truth, _ = sim.truth()
        total = len(truth["page"] | truth["seed"])

        def steady():
            pages = [r for r in sim.requests() if is_page_request(r)]
            return (len(pages) >= 0.15 * total and
                    monotonic_ns() - pages[0].ns >= (STEADY_S + BEFORE_S) * 10**9)
        wait_until(steady, CRAWL_TIMEOUT_S, "15% of the pages, at full pace")
        stop_ns = monotonic_ns()
        if kind == "freeze":
            frozen = cluster.procs[("frontier", 1)].proc
            os.kill(frozen.pid, signal.SIGSTOP)
            time.sleep(FREEZE_S)
            os.kill(frozen.pid, signal.SIGCONT)
            frozen = None
        else:
            cluster.kill9("frontier", 1)
            time.sleep(DOWN_S)
            cluster.restart("frontier", 1)
        cont_ns = monotonic_ns()
        final = wait_finished(cluster, ["web"])["web"]
        logs = {k: cluster.procs[("fetcher", k)].log() for k in range(n)}
    finally:
        if frozen is not None:
            os.kill(frozen.pid, signal.SIGCONT)
        codes = cluster.stop()
        sim.stop()
        check_stop_codes(checks, codes)
    requests = sim.requests()
    before = partition_rate(requests, 0, stop_ns - BEFORE_S * 10**9, stop_ns)
    during = partition_rate(requests, 0, stop_ns, cont_ns)
    checks.check(before > 0 and during >= 0.8 * before,
                 f"partition 0 fetched {during:.1f} pages/s while frontier 1 was out, "
                 f"{before:.1f} before (at least 80%)")
    counts, coverage = check_coverage(checks, requests, truth)
    repeated = check_duplicates_none(checks, counts)
    min_gap, gap_count = check_politeness(checks, requests, FREEZE_DELAY_MS, wall_clock=True)
    check_stats_against_truth(checks, final, truth["page"] | truth["seed"], truth, n, "web")
    outage = [line for line in logs[0].splitlines() if "frontier partition 1 unreachable" in line]
    recovery = [line for line in logs[0].splitlines() if "frontier partition 1 answers again" in line]
    checks.check(len(outage) == 1 and len(recovery) == 1,
                 f"fetcher 0 logged the outage {len(outage)} and the recovery {len(recovery)} "
                 f"times (once each)")
    under = sum(1 for g in politeness_gaps(requests, wall_clock=True)[0]
                if g[0] < FREEZE_DELAY_MS * 1_000_000)
    print(f"{kind}: frontier 1 out {(cont_ns - stop_ns) / 1e9:.0f} s; partition 0 fetched "
          f"{before:.1f} pages/s before and {during:.1f} during; coverage {coverage:.2f}% of "
          f"{total} pages, {repeated} fetched twice; {gap_count} gaps between requests to one "
          f"host, smallest {(min_gap or 0) / 1e6:.1f} ms, {under} under the {FREEZE_DELAY_MS} ms "
          f"delay; fetcher 0 said: {' / '.join(outage + recovery)}", flush=True)


REVISIT_BUDGET_PER_S = 10
REVISIT_RUN_S = 30
REVISIT_WARMUP_S = 10  # discovery, and the cap's first tuning: spend is measured after it


def scenario_revisit(args, checks, work):
    n = 2
    budget = REVISIT_BUDGET_PER_S
    with web_and_cluster(args, checks, work, n, hosts=10, pages=10, seed=24,
                         sim_args=["--change-rates", "fixed:0.25", "--time-scale", "1"],
                         scheduler_args=["--revisit-tune-interval", "1s"]) as (sim, cluster):
        # Nutch from a 1 s interval with a 1 s floor asks for about one visit per page and
        # second, ten times the budget: only the cap holds it.
        write_collection(work("coll.yaml"), "web", sim.seeds(), [
            "revisit: true", "revisit_policy: nutch", f"revisit_budget: {budget}/s",
            "revisit_min_interval: 500ms", "revisit_nutch_initial_interval: 1s",
            "revisit_nutch_min_interval: 1s"])
        start_ns = time.monotonic_ns()
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        shares = []
        while time.monotonic_ns() - start_ns < REVISIT_RUN_S * 1e9:
            stats = stats_of(cluster, "web") or {}
            shares.append(((time.monotonic_ns() - start_ns) / 1e9,
                           as_int(field(stats, "partitions_reporting")),
                           field(stats, "revisit_budget_visits_per_day", 0) / 86400))
            time.sleep(1.0)
        end_ns = time.monotonic_ns()
        final = stats_of(cluster, "web") or {}
    times = revisit_times(sim.requests(), start_ns)
    span = (end_ns - start_ns) / 1e9 - REVISIT_WARMUP_S
    after = [t - REVISIT_WARMUP_S for t in times if REVISIT_WARMUP_S <= t]
    spend = sum(1 for t in after if t < span) / span
    excess = cap_excess(after, budget)
    # Each partition's share is budget x its pages / the fleet's pages, counted at the tuning:
    # once discovery is over the shares add up to the budget.
    tuned = [s for t, p, s in shares if t >= REVISIT_WARMUP_S and p == n]
    checks.check(tuned and all(abs(s - budget) <= 0.01 * budget for s in tuned),
                 f"the {n} partitions' shares add up to the budget {budget}/s (1%) at every "
                 f"sample after {REVISIT_WARMUP_S} s: {[round(s, 3) for _, _, s in shares]}")
    checks.check(abs(spend - budget) <= 0.1 * budget,
                 f"re-visits made across the partitions after {REVISIT_WARMUP_S} s: "
                 f"{spend:.2f}/s, within 10% of the budget {budget}/s")
    # The bucket is empty while nutch asks for more: a few visits of slack for the requests
    # released before the window and logged in it.
    checks.check(excess <= 5, f"re-visits ran ahead of budget x time by {excess:.1f} visits "
                              f"after {REVISIT_WARMUP_S} s (at most 5)")
    waited = as_int(field(final, "revisits_waited"))
    checks.check(waited > 0, f"re-visits waited for the cap: {waited}")
    made = as_int(field(final, "revisits_completed"))
    checks.check(abs(made - len(times)) <= 5 + 0.02 * len(times),
                 f"the collection's re-visits made ({made}) match websim's log ({len(times)})")
    reported = field(final, "revisit_spend_visits_per_day", 0) / 86400
    checks.check(abs(reported - budget) <= 0.25 * budget,
                 f"the collection's measured spend {reported:.2f}/s within 25% of the budget")
    print(f"revisit, n={n}: budget {budget}/s, shares summed {tuned[-1] if tuned else 0:.3f}/s, "
          f"measured spend {spend:.2f}/s (websim's log, after {REVISIT_WARMUP_S} s), "
          f"{reported:.2f}/s (crawlctl stats), re-visits made {made} (log {len(times)}), "
          f"waited {waited}, ran ahead by {excess:.1f} at most", flush=True)


RESHARD_DELAY_MS = 200
RESHARD_SETTLE = "8s"


def scheduler_log_since(cluster, offset, marker, timeout_s):
    """Waits until the scheduler's log, from `offset`, has a line with `marker`; returns it."""
    return wait_until(lambda: cluster.log_line_since("scheduler", offset, marker), timeout_s,
                      f"the scheduler to log '{marker}'", poll_s=0.5)


def restart_scheduler_with(cluster, partitions):
    """Restarts the scheduler (SIGTERM, drained) with another `partitions`; returns the offset of
    its log from which the new process writes."""
    offset, _ = cluster.restart_scheduler(
        ["--partitions", str(partitions), "--reshard-settle", RESHARD_SETTLE])
    return offset


def owners_of(crawler, hosts, partitions):
    """host -> the partition that owns it among `partitions` (`crawler inspect partition`)."""
    out = subprocess.run([crawler, "inspect", "partition", "--partitions", str(partitions)] +
                         sorted(hosts), capture_output=True, text=True, timeout=60, check=True)
    return {host: int(k) for k, host in (line.split("\t") for line in out.stdout.splitlines())}


def check_records_on_owners(checks, frontiers, crawler, urls, partitions, what, every=True):
    """Every URL of `urls` has its record (the seen entry, the fetch and re-visit history) on
    exactly one of the frontier partitions `frontiers` (k -> LookupUrls), the one that owns its
    host among `partitions`: a moved host's records are on its new owner and gone from the old
    one. every=False: the URLs with no record anywhere are left out (not seen yet). Returns
    {url: its record} for the checks that follow."""
    urls = sorted(urls)
    host = {u: u.split("/")[2] for u in urls}
    owner = owners_of(crawler, set(host.values()), partitions)
    found = collections.defaultdict(dict)  # url -> {k: record}
    for k, lookup in frontiers.items():
        for i in range(0, len(urls), 1000):
            batch = urls[i:i + 1000]
            for url, result in zip(batch, lookup(batch)):
                if result.found:
                    found[url][k] = result.record
    misplaced = [(u, sorted(found[u]), owner[host[u]]) for u in urls
                 if sorted(found[u]) != [owner[host[u]]] and (every or found[u])]
    checks.check(not misplaced, f"{what}: {len(misplaced)} of {len(urls)} URLs whose record is "
                                f"not on exactly their host's owner (url, on, owner), e.g. "
                                f"{misplaced[:3]}")
    return {u: found[u][owner[host[u]]] for u in urls if owner[host[u]] in found[u]}


def scenario_reshard(args, checks, work):
    sim = Websim(args.websim, work, hosts=60, pages=150, seed=31).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 3,
                      fetcher_args=fetcher_args(sim.port, delay_ms=RESHARD_DELAY_MS),
                      scheduler_args=["--partitions", "2", "--reshard-settle", RESHARD_SETTLE])
    moves = []
    import grpc
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    try:
        cluster.start()
        write_collection(work("coll.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        # `rev` re-visits (none is due within the test) 10 of the hosts, 6 of which move to
        # partition 2 and back: their pages' re-visit histories must move with them.
        owner3 = owners_of(args.crawler, {u.split("/")[2] for u in sim.seeds()}, 3)
        rev_hosts = set(sorted(h for h, k in owner3.items() if k == 2)[:6] +
                        sorted(h for h, k in owner3.items() if k != 2)[:4])
        write_collection(work("rev.yaml"), "rev",
                         [u for u in sim.seeds() if u.split("/")[2] in rev_hosts],
                         ["revisit: true", "revisit_policy: optimal", "revisit_budget: 100/h",
                          "revisit_min_interval: 1h",
                          "allow_host_suffixes: [" + ", ".join(sorted(rev_hosts)) + "]"])
        cluster.ctl("collections", "create", "-f", work("rev.yaml"))
        truth, _ = sim.truth()
        total = len(truth["page"] | truth["seed"])
        rev_expected = {u for u in truth["page"] | truth["seed"] if u.split("/")[2] in rev_hosts}
        token = [("authorization",
                  f"Bearer {open(cluster.internal_token_file).read().strip()}")]
        stubs = [v1.frontier_pb2_grpc.FrontierStub(
            grpc.insecure_channel(cluster.address("frontier", k))) for k in range(3)]

        def lookups(collection):
            return {k: lambda batch, stub=stub: stub.LookupUrls(
                v1.frontier_pb2.LookupUrlsRequest(collection=collection, canonical_urls=batch),
                timeout=30, metadata=token).results for k, stub in enumerate(stubs)}
        frontiers = lookups("web")

        def fetched_pages():
            return {f"http://{r.host}{r.target}" for r in sim.requests()
                    if is_page_request(r) and r.status == 200}

        def reached(fraction):
            return lambda: sum(1 for r in sim.requests()
                               if is_page_request(r)) >= fraction * (total + len(rev_expected))
        wait_until(reached(0.2), CRAWL_TIMEOUT_S, "20% of the pages")
        first_move = time.time()
        offset = restart_scheduler_with(cluster, 3)
        moves.append(scheduler_log_since(cluster, offset, "resharding done: 3 partitions",
                                         CRAWL_TIMEOUT_S))
        # Pages fetched before the first move: their hosts' records moved to partition 2 with
        # their fetch histories; nothing of those hosts stayed on partitions 0 and 1.
        before_move = fetched_pages()
        records = check_records_on_owners(checks, frontiers, args.crawler, before_move, 3,
                                          "after 2 -> 3")
        fetched_early = [u for u, r in records.items() if r.fetch_count >= 1 and
                         r.fetch_time.seconds and r.fetch_time.seconds < first_move]
        rev_records = check_records_on_owners(checks, lookups("rev"), args.crawler, rev_expected,
                                              3, "rev after 2 -> 3", every=False)
        rev_early = [u for u, r in rev_records.items() if r.visit_history and
                     r.fetch_time.seconds and r.fetch_time.seconds < first_move and
                     owner3[u.split("/")[2]] == 2]
        checks.check(rev_early, "rev: no page with a re-visit history from before the first "
                                "move on a host that moved to partition 2")
        wait_until(reached(0.5), CRAWL_TIMEOUT_S, "50% of the pages")
        offset = restart_scheduler_with(cluster, 2)
        scheduler_log_since(cluster, offset, "resharding: 3 partitions -> 2", 60)
        cluster.kill9("frontier", 1)
        time.sleep(2)
        cluster.restart("frontier", 1)
        moves.append(scheduler_log_since(cluster, offset, "resharding done: 2 partitions",
                                         CRAWL_TIMEOUT_S))
        final = wait_finished(cluster, ["web"])["web"]
        # Back at 2: every page's record on its owner by 2, none left on partition 2, and the
        # pages fetched before the first move (moved to 2 and back, or never) still carry the
        # fetch of that time.
        records = check_records_on_owners(checks, frontiers, args.crawler,
                                          truth["page"] | truth["seed"], 2, "after 3 -> 2")
        went_and_came = owners_of(args.crawler, {u.split("/")[2] for u in fetched_early}, 3)
        moved_twice = [u for u in fetched_early if went_and_came[u.split("/")[2]] == 2]
        lost = [u for u in moved_twice if u not in records or
                records[u].fetch_time.seconds >= first_move or not records[u].content_fingerprint]
        checks.check(moved_twice and not lost,
                     f"{len(lost)} of {len(moved_twice)} pages fetched before the first move, "
                     f"on hosts that moved 2 -> 3 -> 2, lost their fetch record: {lost[:3]}")
        # rev re-visits, so it never finishes: every page of its hosts fetched once, then its
        # records (with their re-visit histories) on their owners by 2.
        wait_until(lambda: as_int(field(stats_of(cluster, "rev") or {}, "pages")) >=
                   len(rev_expected), CRAWL_TIMEOUT_S, "every page of rev")
        rev_records = check_records_on_owners(checks, lookups("rev"), args.crawler,
                                              rev_expected, 2, "rev after 3 -> 2")
        no_history = [u for u in rev_expected
                      if u not in rev_records or not rev_records[u].visit_history]
        checks.check(not no_history, f"rev: {len(no_history)} of {len(rev_expected)} pages "
                                     f"without their re-visit history: {no_history[:3]}")
        kept = [u for u in rev_early if u in rev_records and rev_records[u].visit_history and
                rev_records[u].fetch_time.seconds < first_move]
        checks.check(len(kept) == len(rev_early),
                     f"rev: {len(rev_early) - len(kept)} of {len(rev_early)} pages whose host went "
                     f"2 -> 3 -> 2 lost the re-visit history of their first fetch")
    finally:
        codes = cluster.stop()
        sim.stop()
        check_stop_codes(checks, codes)
    requests = sim.requests()
    counts, coverage = check_coverage(checks, requests, truth)
    # Once per collection: rev's pages twice, the others once.
    wrong = {u: n for u, n in counts.items() if n != (2 if u in rev_expected else 1)}
    checks.check(not wrong, f"{len(wrong)} pages not fetched once per collection, e.g. "
                            f"{sorted(wrong.items())[:5]}")
    min_gap, gap_count = check_politeness(checks, requests, RESHARD_DELAY_MS, wall_clock=True)
    check_stats_against_truth(checks, final, truth["page"] | truth["seed"], truth, 2, "web")
    print(f"reshard: 2 -> 3 -> 2 partitions mid-crawl (frontier 1 killed during the second move); "
          f"coverage {coverage:.2f}% of {total} pages, {len(wrong)} fetched more than once per "
          f"collection; {gap_count} gaps between requests to one host, smallest "
          f"{(min_gap or 0) / 1e6:.1f} ms; every record on its host's owner after each move "
          f"({len(moved_twice)} pages went 2 -> 3 -> 2 with their fetch record, {len(kept)} of "
          f"rev's with their re-visit history); the scheduler "
          f"said: {' / '.join(m.split('] ', 1)[-1] for m in moves)}", flush=True)


def scenario_sitemaps(args, checks, work):
    """crawlctl seeds add --sitemap, through the Admin API to the partitions: a collection with
    sitemap discovery off crawls the linked pages only; one host's sitemap added with crawlctl
    then brings that host's sitemap-only pages (and no other), and explain shows what the
    sitemap said of one."""
    n = 2
    with web_and_cluster(args, checks, work, n, hosts=20, pages=10, seed=26,
                         sim_args=("--sitemap-only", "3")) as (sim, cluster):
        write_collection(work("coll.yaml"), "web", sim.seeds(), ["sitemap_discovery: off"])
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        first = wait_finished(cluster, ["web"])["web"]
        added = cluster.ctl("seeds", "add", "web", "--sitemap",
                            "http://h1.websim.test/sitemap.xml").stdout
        final = wait_finished(cluster, ["web"])["web"]
        truth, _ = sim.truth()
        only_h1 = sorted(u for u in truth["sitemap_only"] if u.startswith("http://h1.websim.test/"))
        explained = cluster.ctl("explain", "web", only_h1[0], check=False).stdout \
            if only_h1 else ""
    linked = truth["page"] | truth["seed"]
    requests = sim.requests()
    fetched = {url_of(r) for r in requests if is_page_request(r) and r.status == 200}
    sitemaps = sorted({url_of(r) for r in requests if not is_page_request(r)
                       and r.target != "/robots.txt"})
    checks.check(len(only_h1) == 3, f"truth: h1 has {len(only_h1)} sitemap-only pages, want 3")
    checks.check(fetched == linked | set(only_h1),
                 f"pages fetched: {len(linked - fetched)} linked missing, "
                 f"{len(set(only_h1) - fetched)} of h1's sitemap-only missing, "
                 f"{len(fetched - linked - set(only_h1))} others")
    checks.check(sitemaps == ["http://h1.websim.test/sitemap.xml"],
                 f"sitemaps requested: {sitemaps} (discovery off: only the one added)")
    checks.check(as_int(field(first, "pages")) == len(linked),
                 f"before the sitemap: stats pages {field(first, 'pages')}, want {len(linked)}")
    checks.check(as_int(field(final, "pages")) == len(linked) + len(only_h1),
                 f"after it: stats pages {field(final, 'pages')}, want "
                 f"{len(linked) + len(only_h1)} (the sitemap itself is not a page)")
    checks.check("queued" in added and "1" in added, f"seeds add --sitemap said: {added!r}")
    checks.check("sitemap said" in explained and "lastmod" in explained,
                 f"explain of {only_h1[:1]} shows no sitemap hints: {explained!r}")
    print(f"sitemaps: {len(linked)} linked pages, then {len(only_h1)} more from h1's sitemap "
          f"added with crawlctl; stats pages {field(first, 'pages')} -> {field(final, 'pages')}",
          flush=True)


SCENARIOS = {"n2": lambda a, c, w: scenario_partitions(a, c, w, 2),
             "n3": lambda a, c, w: scenario_partitions(a, c, w, 3),
             "two": scenario_two, "faults": scenario_faults, "revisit": scenario_revisit,
             "freeze": scenario_freeze, "frontier_down": scenario_frontier_down,
             "reshard": scenario_reshard, "sitemaps": scenario_sitemaps}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawlerd", required=True)
    parser.add_argument("--crawlctl", required=True)
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--protoc", default="/usr/bin/protoc")
    parser.add_argument("--plugin", default="/usr/bin/grpc_python_plugin")
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    return run_scenario(args, SCENARIOS, "distributed", "dist", errors=(Fatal, ClusterError, subprocess.TimeoutExpired))


if __name__ == "__main__":
    sys.exit(main())
