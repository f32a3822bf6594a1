#!/usr/bin/env python3
"""End-to-end test of politeness kept in Redis (`crawler crawl --politeness redis://...`),
against websim and a real redis-server on loopback.

Scenarios (--scenario):
  shared   two crawls (two collections, two data directories) of the same websim at the same
           time, sharing one Redis: the requests of both together keep every host's delay
           (checked from websim's request log), and each crawl fetches every page.
  restart  a crawl whose Redis is killed (SIGKILL) mid-crawl and restarted empty, and a second
           crawl of the same web started as Redis returns: no request reaches websim while Redis
           is down, no two requests to a host come closer than the delay after it returns (the
           fresh-Redis wait: the second crawl knows nothing of the first's last requests), and
           both crawls end with every page fetched.

Usage: redis_politeness_test.py --crawler BIN --websim BIN --scenario NAME [--keep]
Exit status 0 when every check passed; 1 otherwise (each failed check is printed).
"""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from crawlertest.e2e import (  # noqa: E402
    Crawl, RedisServer, Websim, check_crawl_log_pages, check_politeness, crawl_command,
    monotonic_ns, read_crawl_log, read_stats, run_scenario, wait_until)

CRAWL_TIMEOUT_S = 300


def crawl(args, sim, work, name, delay_ms, redis, extra=()):
    return Crawl(crawl_command(args.crawler, sim.seeds_file, work(name), sim.port,
                               work(f"{name}.stats.json"), delay_ms,
                               ("--politeness", redis.url(), *extra)),
                 work(f"{name}.stderr"))


def check_crawl(checks, work, name, expected, rc, proc):
    if not checks.check(rc == 0, f"{name} exited with {rc}: {proc.stderr()[-2000:]}"):
        return
    stats = read_stats(work(f"{name}.stats.json"))
    checks.check(stats.get("complete") is True, f"{name}: complete is {stats.get('complete')}")
    lines, malformed = read_crawl_log(os.path.join(work(name), "crawl.log"))
    checks.check(not malformed, f"{name}: {len(malformed)} malformed crawl log lines")
    check_crawl_log_pages(checks, lines, expected, f"{name} crawl log")


def scenario_shared(args, checks, work):
    delay_ms = 100
    sim = Websim(args.websim, work, hosts=20, pages=30, seed=23)
    redis = RedisServer(work)
    crawls = []
    try:
        redis.start()
        sim.start()
        crawls = [crawl(args, sim, work, name, delay_ms, redis) for name in ("a", "b")]
        codes = [c.wait(CRAWL_TIMEOUT_S) for c in crawls]
    finally:
        for c in crawls:
            c.kill()
        sim.stop()
        redis.stop()
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    for name, rc, c in zip(("a", "b"), codes, crawls):
        check_crawl(checks, work, name, expected, rc, c)
    requests = sim.requests()
    # Both crawls fetched every page, robots.txt included: each host saw two of everything.
    checks.check(len(requests) >= 2 * len(expected),
                 f"websim answered {len(requests)} requests, fewer than the two crawls' "
                 f"{2 * len(expected)} pages")
    min_gap, gaps = check_politeness(checks, requests, delay_ms, wall_clock=True)
    print(f"shared: {len(requests)} requests of two crawls; smallest gap "
          f"{(min_gap or 0) / 1e6:.1f} ms over {gaps} gaps (delay {delay_ms} ms)", flush=True)


def scenario_restart(args, checks, work):
    # The delay is longer than the outage, so hosts are mid-gap when Redis comes back empty; a
    # second crawl starting right then knows nothing of them (only the fresh-Redis wait keeps
    # it from contacting them at once).
    delay_ms = 3000
    down_s = 0.3
    sim = Websim(args.websim, work, hosts=24, pages=4, seed=29)
    redis = RedisServer(work)
    procs = {}
    try:
        redis.start()
        sim.start()
        procs["a"] = crawl(args, sim, work, "a", delay_ms, redis)
        # Kill Redis once the crawl is well under way (every host started).
        wait_until(lambda: len(sim.requests()) >= 2 * sim.hosts, 120, "the crawl to get going")
        redis.kill()
        killed_ns = monotonic_ns()
        time.sleep(down_s)
        restarted_ns = monotonic_ns()
        redis.start()  # empty: no persistence
        procs["b"] = crawl(args, sim, work, "b", delay_ms, redis)
        codes = {name: p.wait(CRAWL_TIMEOUT_S) for name, p in procs.items()}
    finally:
        for p in procs.values():
            p.kill()
        sim.stop()
        redis.stop()
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    for name, p in procs.items():
        check_crawl(checks, work, name, expected, codes[name], p)
    requests = sim.requests()
    # A request claimed just before the kill may still be connecting: allow it 100 ms.
    during = [r for r in requests if killed_ns + 100_000_000 <= r.ns < restarted_ns]
    checks.check(not during, f"{len(during)} requests reached websim while Redis was down, "
                             f"e.g. {during[:3]}")
    min_gap, gaps = check_politeness(checks, requests, delay_ms, wall_clock=True)
    stderr = procs["a"].stderr()
    checks.check(stderr.count("unreachable") == 1,
                 f"the outage was logged {stderr.count('unreachable')} times, not once: "
                 f"{stderr[-1500:]}")
    checks.check("answers again" in stderr, f"the recovery was not logged: {stderr[-1500:]}")
    print(f"restart: Redis down {down_s:.1f} s, a second crawl started as it came back empty; "
          f"{len(requests)} requests, 0 while down; smallest gap {(min_gap or 0) / 1e6:.1f} ms "
          f"over {gaps} gaps (delay {delay_ms} ms)", flush=True)


SCENARIOS = {"shared": scenario_shared, "restart": scenario_restart}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    return run_scenario(args, SCENARIOS, "e2e redis", "e2e-redis")


if __name__ == "__main__":
    sys.exit(main())
