#!/usr/bin/env python3
"""End-to-end test of the Prometheus metrics (docs/metrics.md): /metrics scraped from
`crawler crawl --metrics-listen` and from every crawlerd role, the key series checked against
the crawl's own figures, every metric scraped documented in docs/metrics.md with its type, and
every scrape passed through `promtool check metrics` (exit 0).

Scenarios (--scenario):
  crawl    `crawler crawl --metrics-listen 127.0.0.1:0` of websim, scraped while it runs (the
           last scrape before it exits is checked): the key series exist, pages_total's HTTP
           classes add up to at most the stats JSON's page count and success > 0, counters never
           go down between scrapes; the politeness wait and claim histograms and the WARC
           counters have counts > 0 (a politeness wait per request: at least as many as fetch
           durations); an address in use makes the crawl exit 1 saying so.
  revisit  a re-visiting `crawler crawl` (--revisit, --run-for) of websim pages that change
           every few seconds, scraped while it runs: the scheduler's
           estimated_freshness_ratio is in [0, 1] and revisit_spend_ratio > 0 once tuned, and
           revisit_prior_mean_rate_per_day, once the scheduler has fitted the prior, is within a
           factor of 2 of the pages' rate (a change every 4 s, 21,600 a day: on the fitted
           prior's grid, which reaches 10^6 a day); the frontier's budget
           gauge is the budget, its measured spend gauge is in (0, 1.5 x
           budget] and its re-visits counter agrees with the stats.
  cluster  the four crawlerd roles (scripts/cluster.py, N = 2, --metrics-listen on each) crawl
           websim; each role is scraped at the end: its series exist, the fetchers' pages add
           up to crawlctl's page count, promtool accepts every scrape.

promtool comes with Debian's `prometheus` package (scripts/install-deps.sh); without it the
test is skipped (exit 77, ctest's SKIP_RETURN_CODE) saying so, never passed.

Usage: metrics_test.py --crawler BIN --websim BIN [--crawlerd BIN --crawlctl BIN]
       --scenario NAME [--promtool BIN] [--keep]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

sys.dont_write_bytecode = True

from crawlertest.e2e import (  # noqa: E402
    Crawl, Fatal, Websim, crawl_command, read_stats, run_scenario, wait_until)

CRAWL_TIMEOUT_S = 300
HTTP_CLASSES = ("success", "not_modified", "redirect", "client_error", "server_error")

# Series every scrape of the crawl must hold (docs/metrics.md).
CRAWL_SERIES = (
    "crawler_build_info", "crawler_fetcher_pages_total", "crawler_fetcher_bytes_total",
    "crawler_fetcher_fetch_duration_seconds_bucket", "crawler_fetcher_robots_denied_total",
    "crawler_fetcher_duplicates_total", "crawler_fetcher_transfers_in_flight",
    "crawler_fetcher_politeness_claims_total", "crawler_fetcher_politeness_store_up",
    "crawler_frontier_urls_queued", "crawler_frontier_due_backlog",
    "crawler_frontier_leases_active", "crawler_frontier_disk_free_bytes",
    "crawler_frontier_disk_size_bytes", "crawler_fetcher_politeness_wait_seconds_bucket",
    "crawler_fetcher_politeness_claim_duration_seconds_bucket",
    "crawler_fetcher_warc_records_total", "crawler_fetcher_warc_bytes_total",
    "crawler_fetcher_hosts_waiting",
)
REVISIT_SERIES = ("crawler_scheduler_estimated_freshness_ratio",
                  "crawler_scheduler_revisit_spend_ratio")
PRIOR_SERIES = "crawler_scheduler_revisit_prior_mean_rate_per_day"
ROLE_SERIES = {
    "frontier": ("crawler_build_info", "crawler_frontier_urls_queued",
                 "crawler_frontier_due_backlog", "crawler_frontier_leases_active",
                 "crawler_frontier_disk_free_bytes", "crawler_frontier_rpc_duration_seconds_bucket"),
    "fetcher": ("crawler_build_info", "crawler_fetcher_pages_total", "crawler_fetcher_bytes_total",
                "crawler_fetcher_fetch_duration_seconds_bucket",
                "crawler_fetcher_exchange_urls_total", "crawler_fetcher_politeness_claims_total",
                "crawler_fetcher_politeness_store_up", "crawler_fetcher_transfers_in_flight",
                "crawler_fetcher_politeness_wait_seconds_bucket",
                "crawler_fetcher_politeness_claim_duration_seconds_bucket",
                "crawler_fetcher_warc_records_total", "crawler_fetcher_warc_bytes_total"),
    "dedup": ("crawler_build_info", "crawler_dedup_lookups_total",
              "crawler_dedup_rpc_duration_seconds_bucket"),
    "scheduler": ("crawler_build_info", "crawler_scheduler_collections",
                  "crawler_scheduler_rpc_duration_seconds_bucket"),
}

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, frozenset(labels)): value} of a text-format scrape."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if m:
            labels = frozenset(LABEL.findall(m.group(2) or ""))
            out[(m.group(1), labels)] = float(m.group(3))
    return out


def total(samples, name, **labels):
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def scrape(address):
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as r:
        return r.read().decode()


def promtool_check(checks, promtool, text, what):
    out = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                         text=True, timeout=60)
    checks.check(out.returncode == 0 and not out.stdout.strip() and not out.stderr.strip(),
                 f"{what}: promtool check metrics exited {out.returncode}: "
                 f"{(out.stdout + out.stderr).strip()[:2000]}")


def check_series(checks, samples, names, what):
    present = {n for (n, _) in samples}
    missing = [n for n in names if n not in present]
    checks.check(not missing, f"{what}: series missing: {missing}")


def check_no_url_labels(checks, samples, what):
    bad = sorted({k for (_, ls) in samples for k, _ in ls if k in ("url", "host", "domain")})
    checks.check(not bad, f"{what}: unbounded labels {bad}")


DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")
DOC_ROW = re.compile(r"^\| `([a-z_<>]+)` \| (counter|gauge|histogram|summary) \|", re.M)
RPC_METRIC = re.compile(r"^crawler_(fetcher|frontier|dedup|scheduler)_(rpc_\w+)$")


def check_documented(checks, text, what):
    """Every metric family of a scrape (its `# TYPE` line) has a row in docs/metrics.md with
    that type; the RPC families are documented once as `crawler_<service>_rpc_...`."""
    with open(os.path.join(DOCS, "metrics.md")) as f:
        documented = dict(DOC_ROW.findall(f.read()))
    wrong = []
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        key = RPC_METRIC.sub(r"crawler_<service>_\2", name)
        if documented.get(key) != kind:
            wrong.append(f"{name} ({kind}; documented: {documented.get(key, 'no')})")
    checks.check(not wrong, f"{what}: metrics not documented as exported: {wrong}")


def metrics_address(stderr, who):
    m = re.search(re.escape(who) + r": metrics on http://([^/\s]+)/metrics", stderr)
    return m.group(1) if m else None


def scenario_crawl(args, checks, work):
    sim = Websim(args.websim, work, hosts=12, pages=25, seed=31).start()
    scrapes = []
    try:
        crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                                    work("stats.json"), 20,
                                    ("--metrics-listen", "127.0.0.1:0")),
                      work("crawl.stderr"))
        try:
            rc = scrape_crawl(crawl, scrapes)
        finally:
            crawl.kill()
        # An address in use (websim's) is a clear error, exit 1.
        busy = subprocess.run(
            crawl_command(args.crawler, sim.seeds_file, work("busy"), sim.port,
                          work("busy.json"), 20, ("--metrics-listen", f"127.0.0.1:{sim.port}")),
            capture_output=True, text=True, timeout=60)
    finally:
        sim.stop()
    checks.check(rc == 0, f"crawl exited with {rc}: {crawl.stderr()[-2000:]}")
    checks.check(busy.returncode == 1 and "cannot serve metrics" in busy.stderr,
                 f"a busy metrics address: exit {busy.returncode}, {busy.stderr.strip()[-500:]}")
    if not checks.check(len(scrapes) >= 2, f"only {len(scrapes)} scrapes during the crawl"):
        return
    stats = read_stats(work("stats.json"))
    last = parse(scrapes[-1])
    check_series(checks, last, CRAWL_SERIES, "crawl")
    check_no_url_labels(checks, last, "crawl")
    check_documented(checks, scrapes[-1], "crawl")
    success = total(last, "crawler_fetcher_pages_total", outcome="success")
    http = sum(total(last, "crawler_fetcher_pages_total", outcome=c) for c in HTTP_CLASSES)
    checks.check(success > 0, "crawler_fetcher_pages_total{outcome=success} is 0")
    checks.check(http <= stats["pages"],
                 f"pages_total's HTTP classes {http} > the stats' {stats['pages']} pages")
    checks.check(total(last, "crawler_fetcher_bytes_total") > 0, "bytes_total is 0")
    checks.check(total(last, "crawler_fetcher_fetch_duration_seconds_count") >= success,
                 "fewer fetch durations than successful pages")
    checks.check(total(last, "crawler_frontier_disk_size_bytes") > 0, "disk_size_bytes is 0")
    # A politeness wait per request started (robots.txt included): requests still in flight or
    # being processed have one and no fetch duration yet.
    waits = total(last, "crawler_fetcher_politeness_wait_seconds_count")
    durations = total(last, "crawler_fetcher_fetch_duration_seconds_count")
    checks.check(waits > 0 and waits >= durations,
                 f"politeness waits {waits:.0f}, fetch durations {durations:.0f}")
    checks.check(total(last, "crawler_fetcher_politeness_claim_duration_seconds_count") > 0,
                 "no politeness Exchange timed")
    checks.check(total(last, "crawler_fetcher_warc_records_total") > 0 and
                 total(last, "crawler_fetcher_warc_bytes_total") > 0, "no WARC records counted")
    # Counters never go down from one scrape to the next.
    previous = {}
    for text in scrapes:
        samples = parse(text)
        for key, value in samples.items():
            if key[0].endswith("_total") and value < previous.get(key, 0):
                checks.fail(f"counter {key[0]}{dict(key[1])} went down: "
                            f"{previous[key]} -> {value}")
        previous.update(samples)
    promtool_check(checks, args.promtool, scrapes[-1], "crawl")
    print(f"crawl: {len(scrapes)} scrapes; last: {http:.0f} pages ({success:.0f} success) of "
          f"{stats['pages']} in the stats", flush=True)


def scrape_crawl(crawl, scrapes):
    """Scrapes the running crawl every 0.1 s into `scrapes` until it exits; its exit code."""
    wait_until(lambda: metrics_address(crawl.stderr(), "crawl") or not crawl.running(),
               60, "the crawl to log its metrics address")
    address = metrics_address(crawl.stderr(), "crawl")
    if address is None:
        raise Fatal(f"no metrics address logged: {crawl.stderr()[-2000:]}")
    deadline = time.monotonic() + CRAWL_TIMEOUT_S
    while crawl.running() and time.monotonic() < deadline:
        try:
            scrapes.append(scrape(address))
        except OSError:
            pass  # the crawl is exiting
        time.sleep(0.1)
    return crawl.wait(60)


def scenario_revisit(args, checks, work):
    # As crawl_websim_test.py's revisit scenario: pages changing every 4 s (a simulated day per
    # second), a budget of 10 re-visits per second, re-tuned every second.
    sim = Websim(args.websim, work, hosts=5, pages=10, seed=5,
                 extra_args=["--change-rates", "fixed:0.25", "--time-scale", "1"]).start()
    scrapes = []
    try:
        crawl = Crawl(crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                                    work("stats.json"), 20,
                                    ("--metrics-listen", "127.0.0.1:0", "--revisit",
                                     "--revisit-budget", "10/s", "--revisit-min-interval",
                                     "500ms", "--revisit-tune-interval", "1s", "--run-for",
                                     "12s")),
                      work("crawl.stderr"))
        try:
            rc = scrape_crawl(crawl, scrapes)
        finally:
            crawl.kill()
    finally:
        sim.stop()
    checks.check(rc == 0, f"crawl exited with {rc}: {crawl.stderr()[-2000:]}")
    tuned = [parse(t) for t in scrapes]
    tuned = [s for s in tuned if all(n in {k[0] for k in s} for n in REVISIT_SERIES)]
    if not checks.check(tuned, f"none of {len(scrapes)} scrapes has {REVISIT_SERIES}"):
        return
    last = tuned[-1]
    for (name, labels), value in sorted(last.items()):
        if name == "crawler_scheduler_estimated_freshness_ratio":
            checks.check(0 <= value <= 1, f"{name}{dict(labels)} = {value} not in [0, 1]")
        if name == "crawler_scheduler_revisit_spend_ratio":
            checks.check(value > 0, f"{name}{dict(labels)} = {value} not > 0")
        if name in REVISIT_SERIES:
            checks.check(dict(labels).keys() == {"collection"}, f"{name} labels {dict(labels)}")
    promtool_check(checks, args.promtool, scrapes[-1], "revisit")
    check_documented(checks, scrapes[-1], "revisit")
    # The frontier's side: the cap and the measured spend next to it (budget 10/s).
    budget = total(last, "crawler_frontier_revisit_budget_visits_per_day")
    checks.check(abs(budget - 10 * 86400) < 1, f"frontier budget gauge {budget}, want 864000")
    # The last scrape with the frontier's series (one taken while the crawl closes may lack them).
    final = [p for p in map(parse, scrapes)
             if any(k[0] == "crawler_frontier_revisits_total" for k in p)]
    if not checks.check(final, "no scrape has crawler_frontier_revisits_total"):
        return
    final = final[-1]
    made = total(final, "crawler_frontier_revisits_total")
    measured = total(final, "crawler_frontier_revisit_spend_visits_per_day")
    stats = read_stats(work("stats.json"))
    checks.check(made > 0 and made <= stats.get("revisits_completed", 0),
                 f"crawler_frontier_revisits_total {made}, stats revisits_completed "
                 f"{stats.get('revisits_completed')}")
    # Never above the budget by more than the bucket lets it (one token, then what was saved).
    checks.check(0 < measured <= 1.5 * 10 * 86400,
                 f"crawler_frontier_revisit_spend_visits_per_day {measured} not in (0, 1.5 x "
                 f"budget]")
    # revisit_prior defaults to fitted, and a web changing every 4 s (21,600 changes a day) is
    # on the fitted prior's grid (docs/recrawl.md §3): once the pages have re-visits, the
    # scheduler fits the prior, whose mean the gauge shows.
    priors = [total(p, PRIOR_SERIES) for p in tuned if any(k[0] == PRIOR_SERIES for k in p)]
    if checks.check(priors, f"no scrape has {PRIOR_SERIES}: no prior fitted"):
        checks.check(21600 / 2 <= priors[-1] <= 21600 * 2,
                     f"{PRIOR_SERIES} = {priors[-3:]}, want within a factor of 2 of 21,600")
    freshness = total(last, "crawler_scheduler_estimated_freshness_ratio")
    spend = total(last, "crawler_scheduler_revisit_spend_ratio")
    print(f"revisit: {len(tuned)} of {len(scrapes)} scrapes tuned; last: freshness "
          f"{freshness:.3f}, spend ratio {spend:.3f} (planned), measured "
          f"{measured / 86400:.2f}/s of {budget / 86400:.2f}/s, re-visits made {made:.0f}",
          flush=True)


def scenario_cluster(args, checks, work):
    from crawlertest.cluster import Cluster  # noqa: E402
    from distributed_test import (  # noqa: E402
        as_int, field, fetcher_args, wait_finished, write_collection)

    sim = Websim(args.websim, work, hosts=30, pages=10, seed=37).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 2,
                      fetcher_args=fetcher_args(sim.port), metrics=True)
    texts = {}
    try:
        cluster.start()
        write_collection(work("coll.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("coll.yaml"))
        final = wait_finished(cluster, ["web"])["web"] or {}
        for (role, k) in list(cluster.procs):
            if role == "redis":
                continue
            texts[(role, k)] = scrape(cluster.metrics_address(role, k))
    finally:
        codes = cluster.stop()
        sim.stop()
    checks.check(all(c == 0 for c in codes.values()), f"exit codes {codes}")
    pages = 0
    for (role, k), text in sorted(texts.items()):
        samples = parse(text)
        what = f"{role}-{k}"
        check_series(checks, samples, ROLE_SERIES[role], what)
        check_no_url_labels(checks, samples, what)
        check_documented(checks, text, what)
        promtool_check(checks, args.promtool, text, what)
        if role == "fetcher":
            pages += sum(total(samples, "crawler_fetcher_pages_total", outcome=c)
                         for c in HTTP_CLASSES)
            checks.check(total(samples, "crawler_fetcher_exchange_urls_total",
                               direction="local") > 0, f"{what}: no local outlinks")
    checks.check(len(texts) == 6, f"scraped {sorted(texts)}, not the 6 roles")
    want = as_int(field(final, "pages"))
    checks.check(pages > 0 and pages == want,
                 f"the fetchers' pages_total (HTTP classes) {pages:.0f} != crawlctl's {want}")
    print(f"cluster: {len(texts)} roles scraped; fetchers counted {pages:.0f} pages, "
          f"crawlctl stats {want}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--crawlerd")
    parser.add_argument("--crawlctl")
    parser.add_argument("--promtool", default=shutil.which("promtool"))
    parser.add_argument("--scenario", required=True, choices=("crawl", "cluster", "revisit"))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if not args.promtool:
        print("metrics_test: promtool not found (Debian package prometheus); cannot check the "
              "metrics text: skipped", file=sys.stderr)
        return 77
    from crawlertest.cluster import ClusterError  # noqa: E402
    scenarios = {"crawl": scenario_crawl, "cluster": scenario_cluster,
                 "revisit": scenario_revisit}
    return run_scenario(args, scenarios, "metrics", "metrics-e2e",
                        errors=(Fatal, ClusterError, OSError))


if __name__ == "__main__":
    sys.exit(main())
