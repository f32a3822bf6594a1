#!/usr/bin/env python3
"""Gain capture of every re-visit policy on several change-rate distributions (docs/recrawl.md §9).

gain capture = (F_policy - F_uniform) / (F_oracle - F_uniform): the share of what the optimum with
true rates gains over uniform that a policy gets. For each distribution and seed it runs crawlsim
once per item below, with the same pages and changes (common random numbers):
  - every policy, with the estimators' prior fitted to the fleet (the shipped default);
  - optimal fed the true rates (with its exploration floor: the solver's part of the loss);
  - optimal with the previous prior (a Gamma centred on changes seen per day observed);
  - optimal with the true rates' distribution as its prior (--prior true: what a perfect fit
    could reach with the same visits);
  - optimal deciding on the posterior-expected freshness for every page (--expected-freshness),
    alone and with probing (--probe-horizon 60);
  - optimal exploring with alternating short and long intervals for a page's first 6 visits
    (--explore-visits 6 --explore-short 0.3);
  - optimal with Last-Modified on every page (--last-modified 1), as shipped (the
    posterior-expected freshness for pages with a dated change) and with the log-mean plug-in
    for every page (--expected-freshness-when-dated false), and on half the pages
    (--last-modified 0.5); every other run has none.
Prints one markdown table; exit status 1 if --min-capture is given and the estimating optimal
policy falls below it, or below uniform, on any run.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

DISTRIBUTIONS = [
    ("gamma:0.5,0.4", "Gamma(0.5, 0.4), headline"),
    ("lognormal:-3,2", "log-normal(-3, 2), heavy tail"),
    ("gamma:2,0.1", "Gamma(2, 0.1), narrow"),
    ("gamma:4,0.05", "Gamma(4, 0.05), narrower"),
]


def run(crawlsim, args, rates, seed, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.csv")
        cmd = [crawlsim, "--pages", str(args.pages), "--rates", rates,
               "--budget", str(args.pages * args.budget_per_page), "--days", str(args.days),
               "--seed", str(seed), "--threads", str(args.threads), "--csv", out] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out, newline="") as f:
            return {row["policy"]: float(row["freshness"]) for row in csv.DictReader(f)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crawlsim", required=True)
    parser.add_argument("--pages", type=int, default=20000)
    parser.add_argument("--days", type=float, default=120)
    parser.add_argument("--budget-per-page", type=float, default=0.1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rates", nargs="+", help="distributions (default: the four above)")
    parser.add_argument("--policies", nargs="+", default=["all"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-capture", type=float,
                        help="fail unless optimal (estimates) captures at least this share")
    args = parser.parse_args()

    distributions = [(r, r) for r in args.rates] if args.rates else DISTRIBUTIONS
    policy_args = [a for p in args.policies for a in ("--policy", p)]
    print(f"{args.pages} pages, budget {args.budget_per_page} visits per page per day, "
          f"{args.days:g} days (averages over the second half)\n")
    header = None
    failures = []
    for rates, label in distributions:
        for seed in args.seeds:
            fitted = run(args.crawlsim, args, rates, seed, policy_args + ["--policy", "oracle",
                                                                          "--policy", "uniform"])
            true_rates = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                                "--true-rates"])
            fleet_mean = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                                "--prior", "fleet-mean"])
            true_prior = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                                "--prior", "true"])
            expected = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                              "--expected-freshness"])
            probing = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                             "--expected-freshness",
                                                             "--probe-horizon", "60"])
            exploring = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                               "--explore-visits", "6",
                                                               "--explore-short", "0.3"])
            last_modified = run(args.crawlsim, args, rates, seed, ["--policy", "optimal",
                                                                   "--last-modified", "1"])
            last_modified_plug_in = run(args.crawlsim, args, rates, seed,
                                        ["--policy", "optimal", "--last-modified", "1",
                                         "--expected-freshness-when-dated", "false"])
            half_last_modified = run(args.crawlsim, args, rates, seed,
                                     ["--policy", "optimal", "--last-modified", "0.5"])
            oracle, uniform = fitted["oracle"], fitted["uniform"]
            columns = {"oracle": oracle, "optimal, true rates": true_rates["optimal"],
                       "optimal, estimates": fitted["optimal"],
                       "optimal, previous prior": fleet_mean["optimal"],
                       "optimal, true prior": true_prior["optimal"],
                       "optimal, expected freshness": expected["optimal"],
                       "optimal, expected freshness + probing": probing["optimal"],
                       "optimal, exploration": exploring["optimal"],
                       "optimal, Last-Modified on every page": last_modified["optimal"],
                       "optimal, Last-Modified on every page, log-mean plug-in":
                           last_modified_plug_in["optimal"],
                       "optimal, Last-Modified on half the pages": half_last_modified["optimal"]}
            for name, value in fitted.items():
                if name not in ("oracle", "optimal"):
                    columns[name] = value
            if header is None:
                header = list(columns)
                print("| distribution | seed | F uniform | F oracle | " +
                      " | ".join(header) + " |")
                print("|---|---|---|---|" + "---|" * len(header))
            gain = oracle - uniform

            def capture(value):
                return (value - uniform) / gain if gain > 0 else float("nan")
            print(f"| {label} | {seed} | {uniform:.4f} | {oracle:.4f} | " +
                  " | ".join(f"{capture(columns[h]):+.2f}" if h in columns else "-"
                             for h in header) + " |")
            sys.stdout.flush()
            estimated = capture(fitted["optimal"])
            if fitted["optimal"] < uniform or (args.min_capture is not None and
                                               estimated < args.min_capture):
                failures.append(f"{label} seed {seed}: optimal captures {estimated:.2f}")
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
