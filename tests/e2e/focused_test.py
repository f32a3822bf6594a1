#!/usr/bin/env python3
"""End-to-end test of a focused collection (docs/focused.md): `crawler crawl --focus
external-links` against websim's focused sites (docs/websim.md, "Focused sites") on loopback.

For each case (a site set type and a policy, K = 10 sites, N = 2000 pages) websim serves the
sites and writes their per-page new external links (--focus-replay); banditsim --replay predicts
the links the policy finds on that very set (mean over 20 runs of its random draws); the crawl
must find them within 10%. Also checked: the crawl fetched exactly N pages, only of the seed
sites (no external target was fetched), per-host politeness held (websim's request log), the
stats' reward equals the distinct external links `crawler export links --external` lists, every
page's javascript: and mailto: hrefs are in `crawler export unresolved`, and `crawler export
domains` counts each target domain's linking sites (each websim host is its own site here).

Scenario `distributed` (--crawlerd, --crawlctl): the same kind of set crawled as a focused
collection of a distributed crawl (scripts/cluster.py: two frontier partitions, two fetchers,
dedup, the scheduler on loopback) and by the standalone crawl, same set and policy. Checked: the
pages stay within the budget plus the pulls that may be in flight (each partition's
focus_in_flight), every new external link is counted once fleet-wide (the fetchers' rewards, in
their link ledgers and in the partitions' bandits, add up to the distinct external targets of
`crawler export links --external` over both fetchers' data dirs), and the distributed crawl finds
within 10% of the links the standalone crawl finds.

Usage: focused_test.py --crawler BIN --websim BIN --banditsim BIN [--crawlerd BIN --crawlctl BIN]
                       [--scenario cases|distributed] [--keep]
Exit status 0 when every check passed; 1 otherwise (each failed check is printed).
"""

import argparse
import csv
import io
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from crawlertest.cluster import Cluster, ClusterError  # noqa: E402
from distributed_test import as_int, field, wait_finished, write_collection  # noqa: E402
from crawlertest.e2e import (  # noqa: E402
    Crawl, Fatal, Websim, check_politeness, crawl_command, is_page_request, read_stats,
    run_scenario)

SITES = 10
BUDGET = 2000
DELAY_MS = 2
TOLERANCE = 0.10
CRAWL_TIMEOUT_S = 240
# (set type, websim seed, policy, --focus-in-flight). In-flight 1 is the simulator's sequential
# bandit; 4 chooses ahead of rewards still in flight. One crawl is one sample of a randomised
# policy, compared with the simulator's mean: the sets are ones where the simulated spread is
# small (checked below), so the comparison tests the crawler, not luck.
CASES = [
    ("university", 3, "r3", 1),
    ("university", 4, "rested-thompson", 4),
    ("mixed", 3, "r2", 4),
]
MAX_SIMULATED_SPREAD = 0.03  # sd / mean over banditsim's runs


def predicted_links(banditsim, replay, policy):
    out = subprocess.run([banditsim, "--replay", replay, "--budget", str(BUDGET), "--seeds", "20",
                          "--policy", policy, "--csv", "/dev/stdout"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("replay,")]
    by_policy = {row[1]: row for row in csv.reader(rows)}
    if policy in by_policy:
        row = by_policy[policy]
        return float(row[3]), float(row[4]), float(by_policy["oracle"][3])
    raise Fatal(f"banditsim printed no row for {policy}: {out}")


def export(crawler, what, data_dir, *extra):
    dirs = [data_dir] if isinstance(data_dir, str) else data_dir
    proc = subprocess.run([crawler, "export", what,
                           *[a for d in dirs for a in ("--data-dir", d)], *extra],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise Fatal(f"crawler export {what} exited with {proc.returncode}: {proc.stderr}")
    return list(csv.DictReader(io.StringIO(proc.stdout)))


def run_cases(args, checks, work):
    for case in CASES:
        run_case(args, checks, work, *case)


def run_case(args, checks, work, set_type, seed, policy, in_flight):
    name = f"{set_type}-{policy}-{in_flight}"
    case_dir = lambda *p: work(name, *p)  # noqa: E731
    os.makedirs(case_dir(), exist_ok=True)
    replay = case_dir("replay.tsv")
    sim = Websim(args.websim, case_dir, SITES, 1, seed,
                 ["--focus-set", set_type, "--host-suffix", ".test", "--focus-replay", replay])
    stats_path = case_dir("stats.json")
    data_dir = case_dir("data")
    try:
        sim.start()
        crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, data_dir, sim.port, stats_path,
                                    DELAY_MS,
                                    ("--focus", "external-links", "--focus-policy", policy,
                                     "--focus-in-flight", str(in_flight), "--max-pages",
                                     str(BUDGET), "--no-warc", "--no-fingerprints")),
                      case_dir("crawl.stderr"))
        rc = crawl.wait(CRAWL_TIMEOUT_S)
    finally:
        sim.stop()
    if not checks.check(rc == 0, f"{name}: crawl exited with {rc}: {crawl.stderr()}"):
        return
    stats = read_stats(stats_path)
    found = stats["focus"]["reward"]
    predicted, spread, oracle = predicted_links(args.banditsim, replay, policy)
    checks.check(spread <= MAX_SIMULATED_SPREAD * predicted,
                 f"{name}: the simulated spread ({spread:.1f} links) is too large for one crawl "
                 f"to be compared with the mean; pick another set")
    error = abs(found - predicted) / predicted if predicted > 0 else float(found != 0)
    print(f"  {name}: crawl found {found} new external links in {stats['pages']} pages; "
          f"banditsim predicts {predicted:.1f} (oracle {oracle:.0f}); off by {100 * error:.1f}%",
          flush=True)
    checks.check(error <= TOLERANCE,
                 f"{name}: crawl found {found} links, banditsim predicts {predicted:.1f} "
                 f"(more than {100 * TOLERANCE:.0f}% apart)")
    checks.check(stats["pages"] == BUDGET, f"{name}: {stats['pages']} pages, budget {BUDGET}")
    checks.check(stats["focus"]["pulls"] == BUDGET,
                 f"{name}: the bandit saw {stats['focus']['pulls']} pulls")

    requests = sim.requests()
    hosts = {f"h{i}.test" for i in range(SITES)}
    strays = [r for r in requests if r.host not in hosts]
    checks.check(not strays, f"{name}: requests to other hosts than the sites: {strays[:3]}")
    pages = [r for r in requests if is_page_request(r)]
    checks.check(len(pages) == BUDGET, f"{name}: websim saw {len(pages)} page requests")
    check_politeness(checks, requests, DELAY_MS)

    links = export(args.crawler, "links", data_dir, "--external")
    distinct = {row["target_url"] for row in links}
    checks.check(len(distinct) == found,
                 f"{name}: export links --external lists {len(distinct)} distinct targets, the "
                 f"stats' reward is {found}")
    checks.check(all(row["source_site"] != row["target_domain"] for row in links),
                 f"{name}: an exported external link stays in its site")
    unresolved = export(args.crawler, "unresolved", data_dir)
    reasons = sorted({row["reason"] for row in unresolved})
    checks.check(len(unresolved) == 2 * BUDGET and reasons == ["javascript", "mailto"],
                 f"{name}: {len(unresolved)} unresolved hrefs ({reasons}), expected "
                 f"{2 * BUDGET} (javascript, mailto)")
    domains = export(args.crawler, "domains", data_dir)
    by_domain = {}
    for row in links:
        by_domain.setdefault(row["target_domain"], set()).add(row["source_site"])
    checks.check({r["domain"]: int(r["sites"]) for r in domains} ==
                 {d: len(s) for d, s in by_domain.items()},
                 f"{name}: export domains disagrees with export links")


# The distributed scenario: one set, the recommended policy, K = 10 sites; a smaller budget than
# the cases' keeps the run short (two crawls of it).
DIST_SET = ("university", 4, "rested-thompson", 4)
DIST_BUDGET = 1000
DIST_PARTITIONS = 2


def ledger_rewards(paths):
    """Pages and the sum of their recorded rewards (NEW_EXTERNAL_LINKS of each `page` line)."""
    pages = reward = 0
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("page\t"):
                    pages += 1
                    reward += int(line.split("\t")[3])
    return pages, reward


def run_distributed(args, checks, work):
    if not args.crawlerd or not args.crawlctl:
        raise Fatal("the distributed scenario needs --crawlerd and --crawlctl")
    set_type, seed, policy, in_flight = DIST_SET
    os.makedirs(work("standalone"), exist_ok=True)
    # The standalone crawl of the set: the reference.
    sim = Websim(args.websim, lambda *p: work("standalone", *p), SITES, 1, seed,
                 ["--focus-set", set_type, "--host-suffix", ".test"])
    try:
        sim.start()
        crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, work("standalone", "data"),
                                    sim.port, work("standalone", "stats.json"), DELAY_MS,
                                    ("--focus", "external-links", "--focus-policy", policy,
                                     "--focus-in-flight", str(in_flight), "--max-pages",
                                     str(DIST_BUDGET), "--no-warc", "--no-fingerprints")),
                      work("standalone", "crawl.stderr"))
        rc = crawl.wait(CRAWL_TIMEOUT_S)
    finally:
        sim.stop()
    if not checks.check(rc == 0, f"standalone crawl exited with {rc}: {crawl.stderr()}"):
        return
    standalone = read_stats(work("standalone", "stats.json"))["focus"]["reward"]

    # The distributed crawl of the same set.
    os.makedirs(work("distributed"), exist_ok=True)
    sim = Websim(args.websim, lambda *p: work("distributed", *p), SITES, 1, seed,
                 ["--focus-set", set_type, "--host-suffix", ".test"])
    sim.start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("distributed", "cluster"),
                      DIST_PARTITIONS,
                      fetcher_args=["--allow-network", "127.0.0.0/8", "--connect-to",
                                    f"127.0.0.1:{sim.port}", "--min-delay", f"{DELAY_MS}ms",
                                    "--delay-factor", "0", "--report-interval", "1s"],
                      scheduler_args=["--focus-tune-interval", "1s", "--sync-interval", "500ms"])
    t0 = time.monotonic()
    try:
        cluster.start()
        name = "focus"
        write_collection(work("distributed", "coll.yaml"), name, sim.seeds(),
                         ["focus: external_links", f"focus_policy: {policy}",
                          f"focus_in_flight: {in_flight}", f"max_pages: {DIST_BUDGET}",
                          "store_bodies: false", "fingerprints: false",
                          f"min_delay: {DELAY_MS}ms", "delay_factor: 0"])
        cluster.ctl("collections", "create", "-f", work("distributed", "coll.yaml"))
        stats = wait_finished(cluster, [name], timeout_s=CRAWL_TIMEOUT_S)[name]
        elapsed = time.monotonic() - t0
    finally:
        codes = cluster.stop()
        sim.stop()
    bad = {n: c for n, c in codes.items() if c != 0}
    checks.check(not bad, f"processes that did not drain and exit 0 on SIGTERM: {bad}")
    if not checks.check(stats is not None, "crawlctl stats failed"):
        return
    pages = as_int(field(stats, "pages"))
    pulls = as_int(field(stats, "focus_pulls"))
    reward = as_int(field(stats, "focus_reward"))
    budgets = [as_int(b) for b in field(stats, "focus_page_budgets", [])]
    in_flight_max = DIST_PARTITIONS * in_flight
    checks.check(DIST_BUDGET <= pages <= DIST_BUDGET + in_flight_max,
                 f"distributed: {pages} pages, budget {DIST_BUDGET} (+ at most {in_flight_max} "
                 f"in flight)")
    checks.check(pulls == pages, f"distributed: the bandits saw {pulls} pulls of {pages} pages")
    requests = sim.requests()
    hosts = {f"h{i}.test" for i in range(SITES)}
    checks.check(all(r.host in hosts for r in requests),
                 "distributed: requests to other hosts than the sites")
    web_pages = [r for r in requests if is_page_request(r)]
    checks.check(len(web_pages) == pages,
                 f"distributed: websim saw {len(web_pages)} page requests, stats {pages} pages")
    check_politeness(checks, requests, DELAY_MS)

    data_dirs = [os.path.join(cluster.dir, f"fetcher-{k}") for k in range(DIST_PARTITIONS)]
    ledgers = [os.path.join(d, "links", f"{name}-p{k}.tsv") for k, d in enumerate(data_dirs)]
    ledger_pages, ledger_reward = ledger_rewards([p for p in ledgers if os.path.exists(p)])
    links = export(args.crawler, "links", data_dirs, "--external", "--collection", name)
    distinct = {row["target_url"] for row in links}
    checks.check(ledger_pages == pages,
                 f"distributed: the fetchers recorded {ledger_pages} pages, stats {pages}")
    checks.check(ledger_reward == len(distinct) == reward,
                 f"distributed: the fetchers counted {ledger_reward} new external links, the "
                 f"bandits were told of {reward}, export links --external lists {len(distinct)} "
                 f"distinct targets: a link counted twice or not at all")
    domains = export(args.crawler, "domains", data_dirs, "--collection", name)
    checks.check(sum(int(r["target_urls"]) for r in domains) == len(distinct),
                 "distributed: export domains disagrees with export links")
    error = abs(reward - standalone) / standalone if standalone > 0 else float(reward != 0)
    print(f"  distributed ({DIST_PARTITIONS} partitions, {set_type} {seed}, {policy}, "
          f"in flight {in_flight} per partition): {pages} pages, {reward} new external links in "
          f"{elapsed:.1f} s, budgets {budgets}; standalone {standalone}; off by "
          f"{100 * error:.1f}%", flush=True)
    checks.check(error <= TOLERANCE,
                 f"distributed: found {reward} links, the standalone crawl {standalone} (more "
                 f"than {100 * TOLERANCE:.0f}% apart)")
    checks.check(len(budgets) == DIST_PARTITIONS and sum(budgets) <= DIST_BUDGET + in_flight_max,
                 f"distributed: page budgets {budgets} (sum above {DIST_BUDGET} + in flight)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--banditsim", required=True)
    parser.add_argument("--crawlerd")
    parser.add_argument("--crawlctl")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--scenario", default="cases", choices=["cases", "distributed"])
    args = parser.parse_args()
    name = "e2e.focused" if args.scenario == "cases" else f"e2e.focused_{args.scenario}"
    return run_scenario(args, {"cases": run_cases, "distributed": run_distributed}, name,
                        "e2e-focused", errors=(Fatal, ClusterError))


if __name__ == "__main__":
    sys.exit(main())
