#!/usr/bin/env python3
"""The information ceiling of gain capture (docs/recrawl.md §9), without simulation.

How much of the oracle's gain over uniform can any decision rule capture from a given amount of
evidence per page? Each page's rate is drawn from the distribution; the evidence is drawn from
the page's rate under an observation design; the page's posterior is taken under the TRUE
distribution as the prior (on RatePrior's grid: 10 points per decade, 1e-4..1e6 per day), which
no fitted prior beats. Two allocations are scored with the fixed-order closed form at the true
rates, capture = (F(allocation) - F(uniform)) / (F(true rates) - F(uniform)):

  - plug-in: the freshness optimum solved for the posterior log-means (bisection on mu, as
    AllocationSolver), what the shipped policy does;
  - Bayes: each page's f maximises its posterior-expected freshness minus mu f, mu bisected to
    the budget. For a fixed body of evidence this is the best any rule can do: the budget
    constraint is the only link between pages, and the Lagrangian separates.

The visits that gather the evidence cost nothing here: the ceiling of what a policy could do
after learning for free. Designs:
  - regular N:   N visits at the uniform interval (pages / budget), changed or not (what the
                 policies see without Last-Modified);
  - explore N:   N visits alternating 0.3 and 1.7 times the uniform interval;
  - most informative N: every one of the N visits at the interval where one visit tells the
                 page's own TRUE rate apart best (lambda t = 1.59, where a Bernoulli visit's
                 Fisher information about log lambda peaks): more than an adaptive policy can
                 arrange, since it must learn the rate to pick the interval (plug-in only: the
                 posteriors are page-specific and the Bayes column is too slow in pure Python;
                 it adds at most 0.014 in every other row);
  - all changes T: every change of T days seen (a Poisson count: more than Last-Modified, which
                 dates only the last change before each visit, and more than any visits in
                 those T days, whatever their schedule, since seeing every change tells whether
                 a page changed between any two visits);
and two splits of the oracle's gain, with true rates: the optimum without abandoning the pages
it gives no visits (they keep the uniform rate), and abandoning them with uniform for the rest.
Pure Python, about 40 s of CPU per distribution.
"""
import argparse
import bisect
import math
import random

GRID = [1e-4 * 10 ** (k / 10) for k in range(101)]  # RatePrior's grid, 1e-4..1e6 a day


def draw(spec, n, rng):
    """n rates from a crawlsim rate spec: gamma:SHAPE,SCALE, lognormal:MU,SIGMA, const:V or
    mix:W1@SPEC1/W2@SPEC2/... (the same distributions as crawlsim's, not the same draws)."""
    kind, _, params = spec.partition(":")
    if kind == "mix":
        parts = [part.split("@", 1) for part in params.split("/")]
        weights = [float(w) for w, _ in parts]
        counts = [0] * len(parts)
        for _ in range(n):
            counts[rng.choices(range(len(parts)), weights)[0]] += 1
        rates = [x for (_, inner), count in zip(parts, counts) for x in draw(inner, count, rng)]
        rng.shuffle(rates)
        return rates
    if kind == "const":
        return [float(params)] * n
    a, b = (float(x) for x in params.split(","))
    if kind == "gamma":
        return [rng.gammavariate(a, b) for _ in range(n)]
    if kind == "lognormal":
        return [rng.lognormvariate(a, b) for _ in range(n)]
    raise SystemExit(f"unknown distribution {spec}: gamma:SHAPE,SCALE, lognormal:MU,SIGMA, "
                     "const:V or mix:W@SPEC/...")


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


def posterior(log_prior, log_likelihood):
    """The posterior on GRID as (log-mean rate, [(probability, rate), ...] above 1e-9)."""
    logs = [p + l for p, l in zip(log_prior, log_likelihood)]
    peak = max(logs)
    weights = [math.exp(x - peak) for x in logs]
    total = sum(weights)
    log_mean = math.exp(sum(w * math.log(g) for w, g in zip(weights, GRID)) / total)
    return log_mean, [(w / total, g) for w, g in zip(weights, GRID) if w / total > 1e-9]


def marginal(rate, f):
    """d/df of the fixed-order freshness F(rate, f): g(r) / rate, r = rate / f."""
    r = rate / f
    if r < 1e-4:
        return r * r * 0.5 / rate
    return (-math.expm1(-r) - r * math.exp(-r)) / rate


def bayes_visits(belief, mu):
    """The f maximising sum_k p_k F(lambda_k, f) - mu f (ExpectedOptimalVisitsPerDay)."""
    if sum(p / x for p, x in belief) <= mu:
        return 0.0
    lo, hi = 1e-9, 1e5
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if sum(p * marginal(x, mid) for p, x in belief) > mu:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def newton_visits(belief, mu, start=None):
    """bayes_visits() by a safeguarded Newton iteration on ln f (as PosteriorVisitsPerDay in
    lib/recrawl/posterior_allocation.cc): the same root, a few steps instead of sixty."""
    if not belief or sum(p / x for p, x in belief) <= mu:
        return 0.0
    lo = math.log(belief[0][1]) - 40
    hi = max(lo + 1, 0.5 * math.log(max(x for _, x in belief) / (2 * mu)) + 1)
    x_ = min(max(math.log(start), lo), hi) if start else hi - 1
    for _ in range(100):
        f = math.exp(x_)
        value = slope = 0.0
        for p, rate in belief:
            r = rate / f
            value += p * ((r * r * (0.5 - r / 3) if r < 1e-3 else -math.expm1(-r) - r * math.exp(-r))
                          / rate)
            slope -= p * r * math.exp(-r)
        slope /= f
        if value > mu:
            lo = x_
        else:
            hi = x_
        step = x_ - (math.log(value) - math.log(mu)) / (slope / value) if value > 0 and slope < 0 \
            else 0.5 * (lo + hi)
        if not lo < step < hi:
            step = 0.5 * (lo + hi)
        done = abs(step - x_) < 1e-10 or hi - lo < 1e-10
        x_ = step
        if done:
            break
    return math.exp(x_)


def solve_weighted(weights, beliefs, budget):
    """mu such that sum_key weights[key] * f_key(mu) = budget, each f_key the Bayes decision
    under beliefs[key]; returns {key: f}. Bisection on ln mu, Newton warm-started per key."""
    starts = {}

    def total(mu):
        result = 0.0
        for key, weight in weights.items():
            starts[key] = newton_visits(beliefs[key], mu, starts.get(key))
            result += weight * starts[key]
        return result

    lo, hi = 1e-8, max(sum(p / x for p, x in belief) for belief in beliefs.values()) * 1.01
    for _ in range(60):
        mu = math.sqrt(lo * hi)
        if total(mu) > budget:
            lo = mu
        else:
            hi = mu
        if hi / lo < 1 + 1e-9:
            break
    total(lo)
    return dict(starts)


def grid_prior(rates):
    """The true distribution of `rates` on GRID, as log weights (each rate to its nearest point)."""
    counts = [0] * len(GRID)
    for x in rates:
        k = round(math.log10(max(x, 1e-4) / 1e-4) * 10)
        counts[min(max(k, 0), len(GRID) - 1)] += 1
    return [math.log(c) if c > 0 else -math.inf for c in counts]


def visits_ceiling(rates, budget_per_page, visits, last_modified, rng, optimum):
    """The Bayes capture of `visits` regular visits per page at the uniform interval, with
    Last-Modified on every page or none: the ceiling bench/estimators/grid.py puts beside each
    cell. Without Last-Modified the expectation over each page's evidence is exact (the evidence
    is the number of changed visits); with it the evidence (changes, change-free days) is drawn
    once per page. None when the oracle gains nothing over uniform."""
    interval = 1 / budget_per_page
    budget = budget_per_page * len(rates)
    uniform = sum(freshness(x, budget_per_page) for x in rates)
    best, _ = optimum.solve(rates, budget)
    oracle = sum(freshness(x, f) for x, f in zip(rates, best))
    if not oracle > uniform:
        return None
    log_prior = grid_prior(rates)
    if not last_modified:
        logs = [(math.log(-math.expm1(-g * interval)), -g * interval) for g in GRID]
        beliefs = {k: posterior(log_prior, [k * a + (visits - k) * b for a, b in logs])[1]
                   for k in range(visits + 1)}
        chances = []
        weights = dict.fromkeys(beliefs, 0.0)
        for x in rates:
            q = -math.expm1(-x * interval)
            p = [math.comb(visits, k) * q ** k * (1 - q) ** (visits - k) for k in beliefs]
            chances.append(p)
            for k, pk in enumerate(p):
                weights[k] += pk
        f = solve_weighted(weights, beliefs, budget)
        fresh = sum(pk * freshness(x, f[k]) for x, p in zip(rates, chances)
                    for k, pk in enumerate(p))
    else:
        keys, sums, weights = [], {}, {}
        for x in rates:
            changed, quiet = 0, 0.0
            q = -math.expm1(-x * interval)
            for _ in range(visits):
                if rng.random() < q:
                    changed += 1
                    # time since the last change: Exp(x) truncated to the interval
                    quiet += -math.log1p(-rng.random() * q) / x
                else:
                    quiet += interval
            key = (changed, round(math.log10(max(quiet, 1e-6)) * 20))
            keys.append(key)
            weights[key] = weights.get(key, 0) + 1
            sums[key] = sums.get(key, 0.0) + quiet
        beliefs = {key: posterior(log_prior, [key[0] * math.log(g) - g * sums[key] / n
                                              for g in GRID])[1]
                   for key, n in weights.items()}
        f = solve_weighted(weights, beliefs, budget)
        fresh = sum(freshness(x, f[key]) for x, key in zip(rates, keys))
    return (fresh - uniform) / (oracle - uniform)


def bayes_allocation(keys, beliefs, budget):
    """Each page's Bayes f under its posterior (beliefs[key]), mu bisected to the budget."""
    pages = {}
    for key in keys:
        pages[key] = pages.get(key, 0) + 1
    lo, hi = 1e-6, 1e6
    for _ in range(50):
        mu = math.sqrt(lo * hi)
        if sum(n * bayes_visits(beliefs[key], mu) for key, n in pages.items()) > budget:
            lo = mu
        else:
            hi = mu
    visits = {key: bayes_visits(beliefs[key], lo) for key in pages}
    return [visits[key] for key in keys]


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
    print("| distribution | evidence per page | capture, plug-in | capture, Bayes |")
    print("|---|---|---|---|")
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

        def row(label, plug_in, bayes=None):
            bayes = "" if bayes is None else f"{bayes:+.3f}"
            print(f"| {spec} | {label} | {plug_in:+.3f} | {bayes} |", flush=True)

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

        def score(label, keys, memo, bayes=True):
            # memo: evidence key -> (log-mean, belief); keys: each page's evidence key.
            plug_in = capture(optimum.solve([memo[key][0] for key in keys], budget)[0])
            beliefs = {key: value[1] for key, value in memo.items()}
            row(label, plug_in, capture(bayes_allocation(keys, beliefs, budget)) if bayes else None)

        def visits_log_likelihood(seen):
            # seen: ((interval, visits, changed), ...)
            return [sum(changed * math.log(-math.expm1(-g * t)) - (n - changed) * g * t
                        for t, n, changed in seen) for g in GRID]

        def design(label, intervals):
            # The posterior depends only on which distinct intervals saw a change how often.
            distinct = sorted(set(intervals))
            memo, keys = {}, []
            for x in rates:
                seen = tuple((d, intervals.count(d),
                              sum(1 for t in intervals if t == d and
                                  rng.random() < -math.expm1(-x * t))) for d in distinct)
                if seen not in memo:
                    memo[seen] = posterior(log_prior, visits_log_likelihood(seen))
                keys.append(seen)
            score(label, keys, memo)

        for visits in (6, 9, 12):
            design(f"regular: {visits} visits {interval:g} days apart", [interval] * visits)
        for visits in (6, 12):
            design(f"explore: {visits} visits alternating {0.3 * interval:g} and "
                   f"{1.7 * interval:g} days apart",
                   [(0.3 if i % 2 == 0 else 1.7) * interval for i in range(visits)])
        for visits in (6, 12):
            memo, keys = {}, []
            for x in rates:
                # 1/20 of a decade of intervals, so that pages share posteriors.
                t = 10 ** (round(math.log10(1.59 / x) * 20) / 20)
                seen = ((t, visits, sum(1 for _ in range(visits)
                                        if rng.random() < -math.expm1(-x * t))),)
                if seen not in memo:
                    memo[seen] = posterior(log_prior, visits_log_likelihood(seen))
                keys.append(seen)
            score(f"most informative: {visits} visits, each at 1.59 / the page's true rate",
                  keys, memo, bayes=False)
        for days in (30, 60, 120):
            memo, keys = {}, []
            for x in rates:
                changes = poisson(x * days, rng)
                if changes not in memo:
                    memo[changes] = posterior(log_prior,
                                              [changes * math.log(g) - g * days for g in GRID])
                keys.append(changes)
            score(f"all changes of {days} days seen", keys, memo)


if __name__ == "__main__":
    main()
