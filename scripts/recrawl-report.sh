#!/usr/bin/env bash
# Regenerates the re-visit policy report of docs/recrawl.md: runs tools/crawlsim on the papers'
# worked examples and on the 100,000-page headline scenario, writes the tables and CSV files to
# OUT_DIR and draws the plots with gnuplot. Results are regenerated, not kept in the repository:
# docs/recrawl.md quotes the figures, and docs/recrawl/*.png are the plots of the last run (copy
# them from OUT_DIR when the figures change).
#
#   scripts/recrawl-report.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to build (crawlsim is built there if missing), OUT_DIR to
# BUILD_DIR/recrawl-report.
# Deterministic: the seeds are fixed, so a rerun on the same machine reproduces every number.
# Takes a few minutes of CPU (about half with THREADS=2, the default). PLOTS_ONLY=1 redraws the
# plots from the CSV files already in OUT_DIR.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
out="${2:-$build/recrawl-report}"
threads="${THREADS:-2}"
crawlsim="$build/tools/crawlsim/crawlsim"

if [ ! -x "$crawlsim" ]; then
  cmake --build "$build" --target crawlsim -j "$threads"
fi
command -v gnuplot > /dev/null || { echo "recrawl-report: gnuplot not found" >&2; exit 1; }
mkdir -p "$out"

run() {  # run NAME ARGS...: table to NAME.txt, results to NAME.csv
  local name="$1"
  shift
  [ "${PLOTS_ONLY:-0}" = 1 ] && return 0
  echo "recrawl-report: $name" >&2
  "$crawlsim" "$@" --csv "$out/$name.csv" --threads "$threads" | tee "$out/$name.txt"
}

# 1. Cho & Garcia-Molina, TODS 2003 §5: two pages changing 1/day and 9/day, and five pages
#    changing 1..5/day, each replicated 1,000 times so the scheduler can honour fractional
#    frequencies; true rates, as in the paper.
run tods-two-pages-1 --pages 2000 --rates list:1,9 --budget 1000 --days 300 --warmup 30 \
  --policy uniform --policy proportional --policy oracle --true-rates --seed 1
run tods-two-pages-2 --pages 2000 --rates list:1,9 --budget 2000 --days 300 --warmup 30 \
  --policy uniform --policy proportional --policy oracle --true-rates --seed 1
run tods-five-pages --pages 5000 --rates list:1,2,3,4,5 --budget 5000 --days 300 --warmup 30 \
  --policy uniform --policy proportional --policy oracle --true-rates --seed 1

# 2. The headline: 100,000 pages, Gamma(0.5, 0.4) change rates (mean 0.2/day: one change per
#    5 days), a budget of one visit per page per mean change interval (20,000 visits/day), every
#    policy learning from its own visits; averages over days 100..200.
run headline --pages 100000 --rates gamma:0.5,0.4 --budget 20000 --days 200 --warmup 100 \
  --policy all --seed 1 --series-csv "$out/headline-series.csv" \
  --allocation-csv "$out/headline-allocation.csv" --allocation-sample 4000

# 3. Sensitivity, 20,000 pages: rate spread (Gamma shape), Last-Modified on every page, and a
#    budget of a quarter of that.
run shape-0.25 --pages 20000 --rates gamma:0.25,0.8 --budget 4000 --days 200 --warmup 100 \
  --policy oracle --policy optimal --policy uniform --policy nutch --policy step --seed 2
run shape-2 --pages 20000 --rates gamma:2,0.1 --budget 4000 --days 200 --warmup 100 \
  --policy oracle --policy optimal --policy uniform --policy nutch --policy step --seed 2
run last-modified --pages 20000 --rates gamma:0.5,0.4 --budget 4000 --days 200 --warmup 100 \
  --policy oracle --policy optimal --policy uniform --policy nutch --policy step \
  --last-modified 1 --seed 2
run quarter-budget --pages 20000 --rates gamma:0.5,0.4 --budget 1000 --days 400 --warmup 200 \
  --policy oracle --policy optimal --policy uniform --policy nutch --policy step --seed 2

# The headline in one line per question, as docs/recrawl.md quotes it.
awk -F, '
  NR > 1 { f[$1] = $2 }
  END {
    printf "| optimal / oracle | optimal vs uniform | optimal vs nutch | optimal vs step |\n"
    printf "|---|---|---|---|\n"
    printf "| %.3f | %+.1f%% | %+.1f%% | %+.1f%% |\n", f["optimal"] / f["oracle"],
      100 * (f["optimal"] / f["uniform"] - 1), 100 * (f["optimal"] / f["nutch"] - 1),
      100 * (f["optimal"] / f["step"] - 1)
  }' "$out/headline.csv" | tee "$out/headline-summary.md"

# Freshness over time, one line per policy. uniform, fixed and bayes-published coincide (see
# docs/recrawl.md), so only uniform is drawn.
gnuplot <<EOF
set terminal pngcairo size 1000,600 font ",11"
set output "$out/freshness-over-time.png"
set datafile separator ","
set title "100,000 pages, Gamma(0.5, 0.4) rates, 20,000 visits/day: freshness by day"
set xlabel "day"
set ylabel "freshness (fraction of pages up to date)"
set key outside right
set grid
set yrange [0.6:0.82]
series = "$out/headline-series.csv"
plot series using 1:(strcol(2) eq "oracle" ? \$3 : NaN) with lines lw 2 dt 2 lc rgb "black" title "oracle", \
     series using 1:(strcol(2) eq "optimal" ? \$3 : NaN) with lines lw 3 lc rgb "#1b9e77" title "optimal", \
     series using 1:(strcol(2) eq "stormcrawler" ? \$3 : NaN) with lines lw 2 lc rgb "#7570b3" title "stormcrawler", \
     series using 1:(strcol(2) eq "bayes-corrected" ? \$3 : NaN) with lines lw 2 lc rgb "#e7298a" title "bayes-corrected", \
     series using 1:(strcol(2) eq "uniform" ? \$3 : NaN) with lines lw 2 lc rgb "#666666" title "uniform = fixed = bayes-published", \
     series using 1:(strcol(2) eq "proportional" ? \$3 : NaN) with lines lw 2 lc rgb "#d95f02" title "proportional", \
     series using 1:(strcol(2) eq "nutch" ? \$3 : NaN) with lines lw 2 lc rgb "#e6ab02" title "nutch", \
     series using 1:(strcol(2) eq "step" ? \$3 : NaN) with lines lw 2 lc rgb "#a6761d" title "step"
EOF

# f*(lambda): the optimal frequency for the true rate, and what the estimating policy did.
{ head -n 1 "$out/headline-allocation.csv"; tail -n +2 "$out/headline-allocation.csv" | sort -t, -k2,2g; } \
  > "$out/.allocation-sorted.csv"
gnuplot <<EOF
set terminal pngcairo size 1000,600 font ",11"
set output "$out/optimal-frequency.png"
set datafile separator ","
set title "Visit frequency by change rate (100,000 pages, 20,000 visits/day)"
set xlabel "change rate lambda (changes per day)"
set ylabel "visits per day"
set logscale x
set xrange [0.001:20]
set yrange [0:0.6]
set grid
set key top right
plot "$out/.allocation-sorted.csv" using "rate_per_day":"optimal_visits_per_day" \
       with points pt 7 ps 0.4 lc rgb "#9ecae1" \
       title "optimal (estimated rates): visits/day after warm-up", \
     "$out/.allocation-sorted.csv" using "rate_per_day":"uniform_visits_per_day" \
       with lines lw 2 lc rgb "#777777" title "uniform", \
     "$out/.allocation-sorted.csv" using "rate_per_day":"optimum_visits_per_day" \
       with lines lw 3 lc rgb "#08519c" title "f*(lambda), true rates"
EOF

# What the estimator learnt: the optimal policy's final estimate against the true rate.
gnuplot <<EOF
set terminal pngcairo size 1000,600 font ",11"
set output "$out/rate-estimates.png"
set datafile separator ","
set title "Estimated against true change rate (optimal policy, day 200, 100,000 pages)"
set xlabel "true change rate (changes per day)"
set ylabel "BayesianRate estimate (changes per day)"
set logscale xy
set xrange [0.0001:20]
set yrange [0.0001:20]
set grid
set key top left
plot "$out/.allocation-sorted.csv" using "rate_per_day":"optimal_estimate" \
       with points pt 7 ps 0.4 lc rgb "#9ecae1" title "pages", \
     x with lines lw 2 lc rgb "#08519c" title "estimate = true rate"
EOF
rm -f "$out/.allocation-sorted.csv"
echo "recrawl-report: wrote $out" >&2
