#!/usr/bin/env python3
"""The information ceiling of gain capture (docs/recrawl.md §9), without simulation.

How much of the oracle's gain over uniform can any estimator capture from a given amount of
evidence per page? Each page's rate is drawn from the distribution; the evidence is drawn from
the page's rate under an observation design; the page's estimate is its posterior log-mean under
the TRUE distribution as the prior (on RatePrior's grid: 10 points per decade, 1e-4..1e2 per
day), which no fitted prior beats; the allocation is the freshness optimum solved for the
estimates (bisection on mu, as AllocationSolver) and scored with the fixed-order closed form at
the true rates:

  capture = (F(estimates) - F(uniform)) / (F(true rates) - F(uniform)).

The visits that gather the evidence cost nothing here: the ceiling of what a policy could do
after learning for free. Designs:
  - regular N:   N visits at the uniform interval (pages / budget), changed or not (what the
                 policies see without Last-Modified);
  - explore N:   N visits alternating 0.3 and 1.7 times the uniform interval;
  - all changes T: every change of T days seen (a Poisson count: better than Last-Modified,
                 which dates only the last change before each visit);
and two splits of the oracle's gain, with true rates: the optimum without abandoning the pages
it gives no visits (they keep the uniform rate), and abandoning them with uniform for the rest.
Pure Python, about 20 s of CPU per distribution.
"""
import argparse
import bisect
import math
import random

GRID = [1e-4 * 10 ** (k / 10) for k in range(61)]


def draw(spec, n, rng):
    kind, _, params = spec.partition(":")
    a, b = (float(x) for x in params.split(","))
    if kind == "gamma":
        return [rng.gammavariate(a, b) for _ in range(n)]
    if kind == "lognormal":
        return [rng.lognormvariate(a, b) for _ in range(n)]
    raise SystemExit(f"unknown distribution {spec}: gamma:SHAPE,SCALE or lognormal:MU,SIGMA")


def freshness(rate, f):
    """Fixed-order freshness (1 - e^-r) / r, r = rate / f."""
    if f <= 0:
        return 0.0
    r = rate / f
    return -math.expm1(-r) / r if r > 1e-12 else 1.0


class Optimum:
    """f*(lambda, mu) through g(r) = 1 - e^-r (1 + r) = mu lambda, tabulated."""

    def __init__(self):
        self.r = [10 ** (-6 + 10 * i / 40000) for i in range(40001)]
        self.g = [-math.expm1(-r) - r * math.exp(-r) for r in self.r]

    def visits(self, rate, mu):
        c = mu * rate
        if c >= 1 or rate <= 0:
            return 0.0 if rate > 0 else 1e-12
        i = min(max(bisect.bisect_left(self.g, c), 1), len(self.g) - 1)
        t = (c - self.g[i - 1]) / (self.g[i] - self.g[i - 1])
        return rate / (self.r[i - 1] + t * (self.r[i] - self.r[i - 1]))

    def solve(self, rates, budget):
        lo, hi = 1e-6, 1e6
        for _ in range(80):
            mu = math.sqrt(lo * hi)
            if sum(self.visits(x, mu) for x in rates) > budget:
                lo = mu
            else:
                hi = mu
        return [self.visits(x, mu) for x in rates], mu


def poisson(mean, rng):
    if mean > 50:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def log_mean(log_prior, log_likelihood):
    logs = [p + l for p, l in zip(log_prior, log_likelihood)]
    peak = max(logs)
    weights = [math.exp(x - peak) for x in logs]
    total = sum(weights)
    return math.exp(sum(w * math.log(g) for w, g in zip(weights, GRID)) / total)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", nargs="+", default=["gamma:2,0.1"])
    parser.add_argument("--pages", type=int, default=20000)
    parser.add_argument("--budget-per-page", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    optimum = Optimum()
    interval = 1 / args.budget_per_page
    print(f"{args.pages} pages, budget {args.budget_per_page} visits per page per day "
          f"(uniform interval {interval:g} days), seed {args.seed}\n")
    print("| distribution | evidence per page | capture |")
    print("|---|---|---|")
    for spec in args.rates:
        rng = random.Random(args.seed)
        rates = draw(spec, args.pages, rng)
        budget = args.budget_per_page * len(rates)
        uniform = sum(freshness(x, args.budget_per_page) for x in rates)
        best, mu = optimum.solve(rates, budget)
        oracle = sum(freshness(x, f) for x, f in zip(rates, best))

        def capture(allocation):
            fresh = sum(freshness(x, f) for x, f in zip(rates, allocation))
            return (fresh - uniform) / (oracle - uniform)

        def row(label, value):
            print(f"| {spec} | {label} | {value:+.3f} |", flush=True)

        # The true distribution on the grid: each rate to its nearest grid point.
        counts = [0] * len(GRID)
        for x in rates:
            k = round(math.log10(max(x, 1e-4) / 1e-4) * 10)
            counts[min(max(k, 0), len(GRID) - 1)] += 1
        log_prior = [math.log(c) if c > 0 else -math.inf for c in counts]

        fast = [f == 0 for f in best]
        slow = [x for x, is_fast in zip(rates, fast) if not is_fast]
        if slow:
            slow_best, _ = optimum.solve(slow, budget - args.budget_per_page * sum(fast))
            it = iter(slow_best)
            row("true rates, pages above the abandon line kept at the uniform rate",
                capture([args.budget_per_page if is_fast else next(it) for is_fast in fast]))
            share = budget / len(slow)
            row("true rates, abandon line only (uniform for the rest)",
                capture([0.0 if is_fast else share for is_fast in fast]))

        def design(label, intervals):
            # The posterior depends only on which distinct intervals saw a change how often.
            distinct = sorted(set(intervals))
            memo = {}
            estimates = []
            for x in rates:
                seen = tuple(sum(1 for t in intervals if t == d and
                                 rng.random() < -math.expm1(-x * t)) for d in distinct)
                if seen not in memo:
                    log_l = []
                    for g in GRID:
                        value = 0.0
                        for d, changed in zip(distinct, seen):
                            value += (changed * math.log(-math.expm1(-g * d)) -
                                      (intervals.count(d) - changed) * g * d)
                        log_l.append(value)
                    memo[seen] = log_mean(log_prior, log_l)
                estimates.append(memo[seen])
            row(label, capture(optimum.solve(estimates, budget)[0]))

        for visits in (6, 9, 12):
            design(f"regular: {visits} visits {interval:g} days apart", [interval] * visits)
        for visits in (6, 12):
            design(f"explore: {visits} visits alternating {0.3 * interval:g} and "
                   f"{1.7 * interval:g} days apart",
                   [(0.3 if i % 2 == 0 else 1.7) * interval for i in range(visits)])
        for days in (30, 60, 120):
            memo = {}
            estimates = []
            for x in rates:
                changes = poisson(x * days, rng)
                if changes not in memo:
                    memo[changes] = log_mean(log_prior,
                                             [changes * math.log(g) - g * days for g in GRID])
                estimates.append(memo[changes])
            row(f"all changes of {days} days seen", capture(optimum.solve(estimates, budget)[0]))


if __name__ == "__main__":
    main()
