#!/usr/bin/env python3
"""End-to-end test of host control (docs/crawlctl.md "Hosts", docs/api.md "Host control"): the
distributed crawl on loopback (scripts/cluster.py, N = 2) crawling websim, each host's queue
put under the operator's hand with crawlctl while the collection crawls.

Scenario `crawl` (one, under two minutes):
  - every bad input is refused with exit 2 and changes nothing (an unknown host, a malformed
    one, a block in the past, a delay or a page limit that is not one, a page size out of
    range, a page token not from a previous page);
  - a page limit set right after the collection's creation caps that host's pages;
  - a host blocked for BLOCK_S during the crawl gets no request (robots.txt included) from the
    block until its end (websim's log; the first GRACE_MS after crawlctl returns are the
    fetchers' control-table poll and a request already on its way), and is crawled to the end
    afterwards;
  - a host whose queue is dropped: the count crawlctl prints equals its URLs listed DROPPED,
    and none of those is fetched after the drop;
  - a host given a delay of DELAY_S: consecutive requests to it after the change are at least
    that far apart in websim's log;
  - the other hosts are crawled completely, no page twice; the listings work (list sorted,
    get, urls).

Usage: host_control_test.py --crawlerd BIN --crawlctl BIN --websim BIN [--keep]
"""

import argparse
import collections
import json
import sys
import time

sys.dont_write_bytecode = True

from crawlertest.cluster import Cluster  # noqa: E402
from crawlertest.e2e import (  # noqa: E402
    Websim, is_page_request, monotonic_ns, run_scenario, url_of, wait_until)
from distributed_test import (  # noqa: E402
    check_stop_codes, field, fetcher_args, wait_finished, write_collection)

DELAY_MS = 150     # the collection's politeness delay
BLOCK_S = 12       # how long the blocked host stays blocked
DELAY_S = 1.0      # the delayed host's operator delay (above the collection's)
LIMIT = 3          # the capped host's page limit
# A control in force at the frontier (crawlctl has returned) reaches every fetcher within one
# poll of its control table (250 ms) and a loop turn; a request already on its way still lands.
# A loaded machine (CI runs tests two at a time on 2 cores) stretches both.
GRACE_MS = 1000


def ctl_json(cluster, *args):
    out = cluster.ctl(*args, json_out=True, timeout_s=30)
    return json.loads(out.stdout)


def check_bad_inputs(checks, cluster, host):
    """Every bad input exits 2, and the host's controls stay as they were."""
    before = ctl_json(cluster, "hosts", "get", "web", host)
    bad = [
        ("hosts", "get", "web", "never-seen.test"),
        ("hosts", "block", "web", "never-seen.test", "--for", "10s"),
        ("hosts", "drop", "web", "never-seen.test"),
        ("hosts", "get", "web", "Not A Host"),
        ("hosts", "block", "web", host, "--until", "2001-01-01T00:00:00Z"),
        ("hosts", "block", "web", host, "--until", "tomorrow"),
        ("hosts", "block", "web", host),
        ("hosts", "delay", "web", host, "soon"),
        ("hosts", "delay", "web", host, "48h"),
        ("hosts", "limit", "web", host, "many"),
        ("hosts", "list", "web", "--page-size", "5000"),
        ("hosts", "list", "web", "--page-token", "x"),
        ("hosts", "urls", "web", host, "--page-token", "http://elsewhere.test/"),
        ("hosts", "urls", "web", host, "--state", "queued", "--page-token", "zz"),
        ("hosts", "urls", "web", host, "--state", "sideways"),
    ]
    for args in bad:
        out = cluster.ctl(*args, check=False, timeout_s=30)
        checks.check(out.returncode == 2,
                     f"crawlctl {' '.join(args)} exited {out.returncode}, not 2: "
                     f"{out.stderr.strip()[:300]}")
    missing = cluster.ctl("hosts", "get", "nope", host, check=False, timeout_s=30)
    checks.check(missing.returncode == 5,
                 f"an unknown collection exited {missing.returncode}, not 5")
    after = ctl_json(cluster, "hosts", "get", "web", host)
    checks.check(field(before["host"], "controls", {}) == field(after["host"], "controls", {}),
                 f"refused calls changed {host}'s controls: {before['host']} -> {after['host']}")
    return len(bad) + 1


def requests_of(requests, host, after_ns=0, before_ns=None):
    return [r for r in requests if r.host == host and r.ns >= after_ns and
            (before_ns is None or r.ns < before_ns)]


def scenario_crawl(args, checks, work):
    sim = Websim(args.websim, work, hosts=6, pages=50, seed=41).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 2,
                      fetcher_args=fetcher_args(sim.port, delay_ms=DELAY_MS))
    marks = {}
    try:
        cluster.start()
        seeds = sim.seeds()
        write_collection(work("coll.yaml"), "web", seeds)
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        hosts = sorted({s.split("/")[2] for s in seeds})
        blocked, dropped, delayed, capped = hosts[0], hosts[1], hosts[2], hosts[3]
        limited = ctl_json(cluster, "hosts", "limit", "web", capped, str(LIMIT))
        checks.check(as_int(field(limited["host"], "max_pages")) == LIMIT,
                     f"limit: {limited['host']}")
        # The crawl under way on every host before the operator steps in.
        wait_until(lambda: all(len(requests_of(sim.requests(), h)) >= 3 for h in hosts[:3]),
                   60, "the crawl to reach the hosts")
        bad_inputs = check_bad_inputs(checks, cluster, blocked)

        asked = monotonic_ns()
        cluster.ctl("hosts", "block", "web", blocked, "--for", f"{BLOCK_S}s")
        marks["block"] = monotonic_ns()
        marks["block_end"] = asked + BLOCK_S * 1_000_000_000  # the frontier's end is later
        got = ctl_json(cluster, "hosts", "get", "web", blocked)
        checks.check(field(got["host"]["controls"], "blocked_until", None) is not None,
                     f"get after block: {got['host']}")

        drop = ctl_json(cluster, "hosts", "drop", "web", dropped)
        marks["drop"] = monotonic_ns()
        dropped_count = as_int(field(drop, "dropped"))
        dropped_urls = list_urls(cluster, dropped, "dropped")

        cluster.ctl("hosts", "delay", "web", delayed, f"{int(DELAY_S * 1000)}ms")
        marks["delay"] = monotonic_ns()

        listed = ctl_json(cluster, "hosts", "list", "web", "--sort", "next-due")
        checks.check(as_int(field(listed, "matched")) == len(hosts),
                     f"hosts list matched {field(listed, 'matched')}, not {len(hosts)}")
        for sort in ("queued", "errors"):
            cluster.ctl("hosts", "list", "web", "--sort", sort, "--page-size", "2")
        finals = wait_finished(cluster, ["web"], timeout_s=90)
        after_block = ctl_json(cluster, "hosts", "get", "web", blocked)
        capped_host = ctl_json(cluster, "hosts", "get", "web", capped)
    finally:
        codes = cluster.stop()
        sim.stop()
        check_stop_codes(checks, codes)

    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    requests = sim.requests()
    pages = collections.Counter(url_of(r) for r in requests if is_page_request(r))

    # Block: nothing from GRACE_MS after the block until its end, then crawled to the end.
    during = requests_of(requests, blocked, marks["block"] + GRACE_MS * 1_000_000,
                         marks["block_end"] - 200_000_000)
    checks.check(not during, f"{len(during)} requests to blocked {blocked} during its block, "
                             f"e.g. {[(r.target, (r.ns - marks['block']) / 1e6) for r in during[:3]]}")
    late = [(r.ns - marks["block"]) / 1e6 for r in requests_of(requests, blocked, marks["block"],
                                                                 marks["block_end"])]
    after = requests_of(requests, blocked, marks["block_end"])
    checks.check(after, f"blocked {blocked} got no request after its block ended")
    of_blocked = {u for u in expected if u.split("/")[2] == blocked}
    checks.check(of_blocked <= set(pages), f"{len(of_blocked - set(pages))} pages of {blocked} "
                                           f"never fetched after its block")
    checks.check(as_int(field(after_block["host"], "queued")) == 0,
                 f"{blocked} still has queued URLs at the end: {after_block['host']}")

    # Drop: the count is the URLs listed dropped; none fetched after the drop.
    checks.check(dropped_count > 0 and dropped_count == len(dropped_urls),
                 f"drop said {dropped_count}, {len(dropped_urls)} URLs listed dropped")
    fetched_dropped = [u for u in dropped_urls
                       if any(url_of(r) == u and r.ns >= marks["drop"] + GRACE_MS * 1_000_000
                              for r in requests)]
    checks.check(not fetched_dropped, f"{len(fetched_dropped)} dropped URLs fetched after the "
                                      f"drop, e.g. {fetched_dropped[:3]}")
    ever_dropped = [u for u in dropped_urls if pages[u] > 0]

    # Delay: every gap between requests to the delayed host after the change, on the wall clock
    # (the delay is kept in Redis' claims; see check_politeness).
    slow = requests_of(requests, delayed, marks["delay"] + GRACE_MS * 1_000_000)
    gaps = [(b.wall_ns - a.wall_ns) / 1e6 for a, b in zip(slow, slow[1:])]
    checks.check(len(gaps) >= 3, f"only {len(gaps)} gaps to judge the delay of {delayed}")
    short = [g for g in gaps if g < DELAY_S * 1000]
    checks.check(not short, f"{len(short)} gaps to {delayed} under {DELAY_S} s: {short[:5]}")

    # Limit: the capped host's pages.
    capped_pages = sum(1 for u, c in pages.items() if u.split("/")[2] == capped)
    checks.check(capped_pages <= LIMIT, f"{capped} fetched {capped_pages} pages, limit {LIMIT}")
    checks.check(as_int(field(capped_host["host"], "pages")) <= LIMIT,
                 f"{capped}: {capped_host['host']}")

    # The other hosts: complete, nothing twice.
    others = {u for u in expected if u.split("/")[2] not in (dropped, capped)}
    missing = others - set(pages)
    checks.check(not missing, f"{len(missing)} pages of the other hosts never fetched, e.g. "
                              f"{sorted(missing)[:3]}")
    twice = {u: c for u, c in pages.items() if c > 1}
    checks.check(not twice, f"{len(twice)} pages fetched twice, e.g. {sorted(twice.items())[:3]}")
    checks.check(finals["web"] is not None, "final stats missing")
    print(f"crawl: {len(hosts)} hosts, {len(requests)} requests; {bad_inputs} bad inputs exit 2; "
          f"block {BLOCK_S} s: requests to {blocked} at {late} ms after it, 0 after "
          f"{GRACE_MS} ms, {len(after)} after its end; drop: {dropped_count} URLs, "
          f"{len(ever_dropped)} of them ever fetched, 0 after the drop; delay {DELAY_S} s: "
          f"smallest gap {min(gaps) if gaps else 0:.0f} ms over {len(gaps)} gaps; limit "
          f"{LIMIT}: {capped_pages} pages", flush=True)


def as_int(v):
    return int(v) if v not in (None, "") else 0


def list_urls(cluster, host, state):
    urls, token = [], ""
    for _ in range(100):
        args = ["hosts", "urls", "web", host, "--state", state, "--page-size", "1000"]
        if token:
            args += ["--page-token", token]
        page = ctl_json(cluster, *args)
        urls += [field(u, "url", "") for u in page.get("urls", [])]
        token = field(page, "next_page_token", "")
        if not token:
            break
    return urls


SCENARIOS = {"crawl": scenario_crawl}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawlerd", required=True)
    parser.add_argument("--crawlctl", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--scenario", default="crawl", choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    return run_scenario(args, SCENARIOS, "e2e host control", "e2e-hostctl")


if __name__ == "__main__":
    sys.exit(main())
