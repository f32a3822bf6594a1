#!/usr/bin/env python3
"""End-to-end freshness check of re-visiting (docs/architecture.md §7; docs/recrawl.md).

Runs the standalone crawler with --revisit against websim pages that change as Poisson processes
(--change-rates), once per re-visit policy (default: optimal and uniform, in parallel, each with
its own websim of the same seed, so both see the same pages and the same change times). Then:

  measured   the time-averaged freshness of the crawler's copies, from websim's truth: for each
             page, the copy taken by the crawler's latest GET (200 or 304, from websim's request
             log) is fresh until the page's next change event (from /__websim/changes); averaged
             over the pages of the ground truth and over [warm-up, end] of the run.
  predicted  tools/crawlsim on the same rates (those of the ground truth's pages), budget,
             duration, warm-up, re-tuning interval and maximum interval.

  spend      the re-visits each crawl made (from websim's request log: GETs of a URL fetched
             before), per second over the same window, next to the budget; and the crawler's own
             figures (stats JSON: revisits_completed, revisit_spend_visits_per_day,
             revisits_waited). The budget is a hard cap for every policy, so freshness is also
             given per unit of spend (freshness / (spend / budget)): policies compared at equal
             measured spend.

It passes when, for every policy, the measured spend is within --spend-tolerance (10%) of the
budget and the re-visits made from the start never exceed budget x time + what the token bucket
can have saved (one token at the start, then only unspent budget); the policies of
--expect-waits (default nutch) had re-visits held back by the cap; the measured freshness of the
optimal policy is within --tolerance (10%) of crawlsim's prediction for it, and above the
measured freshness of the uniform policy (skipped with --no-compare, for runs too short to
separate them).

Time: websim runs with --time-scale 1 (one simulated day per real second), so a rate of 0.05 per
simulated day is a change every 20 s on average; crawlsim works in those simulated days and the
crawler, which measures real time, is given the same budget per second.

Usage: freshness_check.py --crawler BIN --websim BIN --crawlsim BIN [--seconds 150] [--keep]
  (tests/e2e registers a short run of it with three policies: e2e.revisit_spend)
Exit status: 0 if every check passed, 1 if one failed, 2 on a setup error.
"""

import argparse
import bisect
import collections
import csv
import json
import os
import subprocess
import sys
import time
import urllib.request

sys.dont_write_bytecode = True

from crawlertest.e2e import (Checks, Crawl, Fatal, Websim, WorkDir, cap_excess,  # noqa: E402
                         crawl_command, revisit_times, url_of)

CHANGES_PATH = "/__websim/changes"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crawler", required=True)
    p.add_argument("--websim", required=True)
    p.add_argument("--crawlsim", required=True)
    p.add_argument("--hosts", type=int, default=20)
    p.add_argument("--pages", type=int, default=25, help="websim --pages (ids per host)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rates", default="gamma:0.3,0.1667",
                   help="websim --change-rates, per simulated day (= per real second here)")
    p.add_argument("--visits-per-change", type=float, default=1.0,
                   help="budget = pages x mean rate x this (1: one visit per page per mean "
                        "change interval)")
    p.add_argument("--seconds", type=float, default=150, help="length of each crawl")
    p.add_argument("--warmup", type=float, default=50, help="seconds excluded from averages")
    p.add_argument("--tune-seconds", type=float, default=5, help="re-tuning interval")
    p.add_argument("--min-interval", type=float, default=0.5, help="crawler's minimum, seconds")
    p.add_argument("--max-interval", type=float, default=600, help="maximum interval, seconds")
    p.add_argument("--policies", default="optimal,uniform")
    p.add_argument("--prior", default="fitted", choices=("fitted", "fleet-mean"),
                   help="the estimators' prior, for the crawler (--revisit-prior) and crawlsim "
                        "(--prior) alike")
    p.add_argument("--nutch-initial-interval", default="1s",
                   help="nutch: interval after the first visit (its shipped 30 days would make "
                        "it re-visit nothing in a run of minutes)")
    p.add_argument("--nutch-min-interval", default="1s",
                   help="nutch: shortest interval (shipped: 60 s)")
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--spend-tolerance", type=float, default=0.10,
                   help="measured spend within this share of the budget")
    p.add_argument("--expect-waits", default="nutch",
                   help="policies (of --policies) that ask for more than the budget: their "
                        "re-visits must have waited for the cap")
    p.add_argument("--no-compare", action="store_true",
                   help="do not require optimal's freshness above uniform's")
    p.add_argument("--out", help="directory for the report (default: the work directory)")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    return p.parse_args()


def read_rates(path):
    rates = {}
    with open(path) as f:
        for line in f:
            url, rate = line.rstrip("\n").split("\t")
            rates[url] = float(rate)
    return rates


def read_truth_pages(path):
    """The ground truth's "page" URLs (docs/websim.md "Ground truth")."""
    pages = set()
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            kind, url = line.rstrip("\n").split("\t")
            if kind == "page":
                pages.add(url)
    return sorted(pages)


def parse_changes(text):
    """(now_days, {url: [change days]}) from websim's change log format."""
    now_days = None
    changes = {}
    for line in text.splitlines():
        if line.startswith("#"):
            for field in line[1:].split():
                if field.startswith("now_days="):
                    now_days = float(field.split("=", 1)[1])
            continue
        if not line.strip():
            continue
        fields = line.split("\t")
        times = [float(t) for t in fields[3].split(",")] if len(fields) > 3 and fields[3] else []
        changes[fields[0]] = times
    if now_days is None:
        raise Fatal("websim change log has no now_days header")
    return now_days, changes


def fetch_changes(sim):
    """GETs /__websim/changes; returns (now_days, changes, monotonic ns of the request as
    websim logged it), which anchors simulated time on the request log's clock."""
    host = "h0" + ".websim.test"
    req = urllib.request.Request(f"http://127.0.0.1:{sim.port}{CHANGES_PATH}",
                                 headers={"Host": host})
    with urllib.request.urlopen(req, timeout=60) as resp:
        text = resp.read().decode()
    now_days, changes = parse_changes(text)
    sim.stop()
    logged = None
    with open(sim.log_file) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) > 2 and fields[2] == CHANGES_PATH:
                logged = int(fields[0])
    if logged is None:
        raise Fatal("websim's request log lacks the /__websim/changes request")
    return now_days, changes, logged


def measured_freshness(pages, fetches, changes, start, end):
    """Time-averaged share of `pages` whose latest fetched copy is current, over [start, end]
    (simulated days). `fetches`: url -> sorted fetch times; `changes`: url -> sorted change
    times. A page not fetched yet counts as stale."""
    total = 0.0
    for url in pages:
        times = fetches.get(url, [])
        events = changes.get(url, [])
        fresh = 0.0
        # Copies in force during [start, end]: the last fetch before start, then each later one.
        i = bisect.bisect_right(times, start) - 1
        while i < len(times):
            copy_time = times[i] if i >= 0 else None
            seg_start = start if i < 0 or times[i] < start else times[i]
            seg_end = min(end, times[i + 1]) if i + 1 < len(times) else end
            if seg_end <= seg_start:
                i += 1
                continue
            if copy_time is not None:
                # Fresh from seg_start until the first change after the copy was taken.
                j = bisect.bisect_right(events, copy_time)
                stale_from = events[j] if j < len(events) else float("inf")
                fresh += max(0.0, min(seg_end, stale_from) - seg_start)
            i += 1
            if seg_end >= end:
                break
        total += fresh / (end - start)
    return total / len(pages)


def run_policy(args, policy, work, budget_per_s):
    """Starts websim and a re-visiting crawl; returns (sim, crawl)."""
    sim = Websim(args.websim, lambda *p: work(policy, *p), args.hosts, args.pages, args.seed,
                 extra_args=["--change-rates", args.rates, "--time-scale", "1",
                             "--rates-file", work(policy, "rates.tsv")],
                 max_seconds=args.seconds + 300)
    os.makedirs(work(policy), exist_ok=True)
    sim.start()
    cmd = crawl_command(
        args.crawler, sim.seeds_file, work(policy, "data"), sim.port,
        work(policy, "stats.json"), 50,
        extra=["--no-warc", "--revisit", "--revisit-policy", policy,
               "--revisit-budget", f"{budget_per_s:.6g}/s",
               "--revisit-min-interval", f"{args.min_interval}s",
               "--revisit-max-interval", f"{args.max_interval}s",
               "--revisit-tune-interval", f"{args.tune_seconds}s",
               "--revisit-prior", args.prior,
               "--revisit-nutch-initial-interval", args.nutch_initial_interval,
               "--revisit-nutch-min-interval", args.nutch_min_interval,
               "--run-for", f"{args.seconds}s"])
    return sim, Crawl(cmd, work(policy, "crawl.stderr"))


def predicted(args, work, rates, budget_per_s, policies):
    rates_file = work("truth-rates.txt")
    with open(rates_file, "w") as f:
        for r in rates:
            f.write(f"{r!r}\n")
    out_csv = work("crawlsim.csv")
    cmd = [args.crawlsim, "--pages", str(len(rates)), "--rates", rates_file,
           "--budget", f"{budget_per_s!r}", "--days", f"{args.seconds!r}",
           "--warmup", f"{args.warmup!r}", "--retune-days", f"{args.tune_seconds!r}",
           "--max-interval-days", f"{args.max_interval!r}", "--seed", str(args.seed),
           "--csv", out_csv, "--threads", "2", "--prior", args.prior]
    for p in policies + ["oracle"]:
        cmd += ["--policy", p]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=600)
    with open(out_csv) as f:
        return {row["policy"]: float(row["freshness"]) for row in csv.DictReader(f)}, cmd


def measure(args, checks, policy, sim, crawl, work, truth_pages, budget):
    """Waits for one crawl, then measures its freshness and spend from websim's truth."""
    code = crawl.wait(args.seconds + 120)
    checks.check(code == 0, f"{policy}: crawl exits 0 (got {code}): {crawl.stderr()[-500:]}")
    now_days, changes, anchor_ns = fetch_changes(sim)
    start_ns = anchor_ns - now_days * 1e9  # time scale 1: a simulated day per second
    requests = sim.requests()
    truth_set = set(truth_pages)
    fetches = collections.defaultdict(list)
    first = None
    visits = 0
    for r in requests:
        if r.method != "GET" or r.status not in (200, 304):
            continue
        url = url_of(r)
        t = (r.ns - start_ns) / 1e9
        fetches[url].append(t)
        if url in truth_set:
            first = t if first is None else min(first, t)
            visits += 1
    if first is None:
        raise Fatal(f"{policy}: no page of the ground truth was fetched")
    window_start = first + args.warmup
    window_end = first + args.seconds
    fresh = measured_freshness(truth_pages, fetches, changes, window_start, window_end)
    in_window = sum(1 for u in truth_pages for t in fetches.get(u, [])
                    if window_start <= t < window_end)
    rate = in_window / (window_end - window_start)
    revisits = revisit_times(requests, crawl.started_ns)
    offset = (crawl.started_ns - start_ns) / 1e9  # crawl-relative to simulated time
    spend = sum(1 for t in revisits
                if window_start <= t + offset < window_end) / (window_end - window_start)
    excess = cap_excess(revisits, budget)
    stats = json.load(open(work(policy, "stats.json")))
    result = {"measured": fresh, "visits": visits, "visits_per_s_in_window": rate,
              "spend_per_s": spend, "freshness_per_spend": fresh / (spend / budget)
              if spend > 0 else float("nan"),
              "revisits_logged": len(revisits), "cap_excess_visits": excess,
              "revisits_completed": stats.get("revisits_completed", 0),
              "crawler_spend_per_s": stats.get("revisit_spend_visits_per_day", 0) / 86400,
              "crawler_budget_per_s": stats.get("revisit_budget_visits_per_day", 0) / 86400,
              "revisits_scheduled": stats.get("revisits_scheduled"),
              "revisits_waited": stats.get("revisits_waited", 0),
              "revisit_wait_seconds": stats.get("revisit_wait_seconds", 0),
              "changes_detected": stats.get("changes_detected")}
    checks.check(all(u in fetches for u in truth_pages),
                 f"{policy}: every page of the ground truth was fetched")
    # The budget is a cap for every policy: the comparison of freshness is at equal spend.
    checks.check(rate <= budget * 1.05,
                 f"{policy}: visits in the window {rate:.2f}/s within the budget "
                 f"{budget:.2f}/s (+5%)")
    checks.check(abs(spend - budget) <= args.spend_tolerance * budget,
                 f"{policy}: measured spend {spend:.2f} re-visits/s within "
                 f"{args.spend_tolerance:.0%} of the budget {budget:.2f}/s")
    # One token at the start, and re-visits already released but not yet logged by websim.
    checks.check(excess <= 3,
                 f"{policy}: re-visits made never ran ahead of budget x time by more than the "
                 f"bucket's start (ran ahead by {excess:.1f} visits at most)")
    checks.check(abs(result["revisits_completed"] - len(revisits)) <= 5 + 0.02 * len(revisits),
                 f"{policy}: the crawler's re-visits made ({result['revisits_completed']}) match "
                 f"websim's log ({len(revisits)})")
    checks.check(abs(result["crawler_budget_per_s"] - budget) <= 1e-3 * budget,
                 f"{policy}: the crawler's cap {result['crawler_budget_per_s']:.3f}/s is the "
                 f"budget {budget:.3f}/s")
    return result


def main():
    args = parse_args()
    checks = Checks("recrawl e2e")
    work = WorkDir("recrawl-e2e-", keep=args.keep)
    policies = args.policies.split(",")
    runs = {}
    try:
        # The ground truth and rates do not depend on the policy: websim writes them without
        # serving.
        os.makedirs(work("probe"), exist_ok=True)
        subprocess.run([args.websim, "--hosts", str(args.hosts), "--pages", str(args.pages),
                        "--seed", str(args.seed), "--change-rates", args.rates,
                        "--time-scale", "1", "--rates-file", work("probe", "rates.tsv"),
                        "--truth", work("probe", "truth.tsv"), "--no-serve"],
                       check=True, timeout=120)
        truth_pages = read_truth_pages(work("probe", "truth.tsv"))
        all_rates = read_rates(work("probe", "rates.tsv"))
        rates = [all_rates[u] for u in truth_pages]
        mean_rate = sum(rates) / len(rates)
        budget = len(rates) * mean_rate * args.visits_per_change
        print(f"recrawl e2e: {len(rates)} pages, mean rate {mean_rate:.4g}/s (a change every "
              f"{1 / mean_rate:.1f} s), budget {budget:.4g} visits/s, {args.seconds:.0f} s per "
              f"crawl, warm-up {args.warmup:.0f} s, policies {', '.join(policies)}", flush=True)

        for policy in policies:
            runs[policy] = run_policy(args, policy, work, budget)
        crawlsim_start = time.monotonic()
        prediction, crawlsim_cmd = predicted(args, work, rates, budget, policies)
        crawlsim_s = time.monotonic() - crawlsim_start

        results = {}
        for policy, (sim, crawl) in runs.items():
            results[policy] = measure(args, checks, policy, sim, crawl, work, truth_pages,
                                      budget)
            results[policy]["predicted"] = prediction.get(policy)
        for policy in args.expect_waits.split(","):
            if policy in results:
                checks.check(results[policy]["revisits_waited"] > 0,
                             f"{policy}: asks for more than the budget, so re-visits waited "
                             f"for the cap (waited {results[policy]['revisits_waited']})")

        opt = results.get("optimal")
        if opt is not None:
            gap = abs(opt["measured"] - opt["predicted"]) / opt["predicted"]
            checks.check(gap <= args.tolerance,
                         f"optimal: measured freshness {opt['measured']:.4f} within "
                         f"{args.tolerance:.0%} of crawlsim's {opt['predicted']:.4f} "
                         f"(off by {gap:.1%})")
            if "uniform" in results and not args.no_compare:
                uni = results["uniform"]
                checks.check(opt["measured"] > uni["measured"],
                             f"optimal's measured freshness {opt['measured']:.4f} is above "
                             f"uniform's {uni['measured']:.4f}")

        lines = ["| policy | budget (visits/s) | measured spend (re-visits/s in window) | "
                 "spend / budget | crawler's spend at the end (/s) | re-visits made | "
                 "re-visits waited | mean wait (s) | measured freshness | freshness / "
                 "(spend / budget) | crawlsim prediction | measured / predicted | "
                 "changes detected |",
                 "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for policy, r in results.items():
            ratio = r["measured"] / r["predicted"] if r["predicted"] else float("nan")
            lines.append(f"| {policy} | {budget:.2f} | {r['spend_per_s']:.2f} | "
                         f"{r['spend_per_s'] / budget:.3f} | "
                         f"{r['crawler_spend_per_s']:.2f} | {r['revisits_completed']} | "
                         f"{r['revisits_waited']} | "
                         f"{r['revisit_wait_seconds'] / max(1, r['revisits_waited']):.2f} | "
                         f"{r['measured']:.4f} | {r['freshness_per_spend']:.4f} | "
                         f"{r['predicted']:.4f} | {ratio:.3f} | {r['changes_detected']} |")
        lines.append(f"| oracle (crawlsim, true rates) | {budget:.2f} | - | - | - | - | - | - | - "
                     f"| - | {prediction['oracle']:.4f} | - | - |")
        table = "\n".join(lines)
        print(table)
        print(f"crawlsim: {' '.join(crawlsim_cmd)} ({crawlsim_s:.1f} s)")
        out = args.out or work.path
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "freshness.md"), "w") as f:
            f.write(table + "\n")
        with open(os.path.join(out, "freshness.json"), "w") as f:
            json.dump({"pages": len(rates), "mean_rate_per_s": mean_rate,
                       "budget_per_s": budget, "seconds": args.seconds, "warmup": args.warmup,
                       "results": results, "oracle": prediction.get("oracle"),
                       "crawlsim": crawlsim_cmd}, f, indent=2)
        code = checks.exit_code()
    except (Fatal, subprocess.SubprocessError, OSError) as e:
        print(f"FATAL: {e}", flush=True)
        code = 2
    finally:
        for sim, crawl in runs.values():
            crawl.kill()
            sim.stop()
    work.finish(code != 0)
    return code


if __name__ == "__main__":
    sys.exit(main())
