#!/usr/bin/env bash
# bench/recrawl: the end-to-end freshness check of re-visiting (docs/architecture.md §7;
# docs/recrawl.md §11). The standalone crawler re-visits websim pages that change as Poisson
# processes, once per policy (--policies, default optimal and uniform; in parallel, ~3 minutes)
# under one budget, a hard cap for every policy; the spend and freshness each achieves, measured
# from websim's truth, are reported side by side (freshness per unit of spend) and compared with
# what tools/crawlsim predicts for the same rates and budget. Not a timed test: it is run by hand
# (or `make bench-recrawl`); ctest runs a 40 s version (e2e.revisit_spend).
#
# Usage: bench/recrawl/run.sh [--build-dir DIR] [--no-build] [--web slow|fast|both]
#                            [freshness_check.py options]
#   (bench/recrawl/freshness_check.py --help lists them: --seconds, --rates, --seed, --out ...)
# --web runs one of two webs, or both in turn (the options after it apply to each), with one
# visit per page every 10 s, 120 s per crawl, averages over the second half (the grid of
# bench/estimators in real seconds, one simulated day per second):
#   slow: Gamma(0.5) rates with a mean of a change every 30 s (most pages visited more often
#         than they change);
#   fast: Gamma(0.5) rates with a mean of 3 changes a second (most pages change many times
#         between visits, the policy must find the few it can keep fresh).
# Without --web: the web of the options (default: freshness_check.py's).
# Exit status: 0 every check passed, 1 one failed, 2 setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir="$repo/build-bench"
build=1
web=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --web) web=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"
               PYTHONPATH="$repo/tests" exec python3 "$repo/bench/recrawl/freshness_check.py" \
                 --help ;;
    *) args+=("$1"); shift ;;
  esac
done

if [ "$build" = 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target crawler websim crawlsim -j2 >/dev/null
fi
# freshness_check.py imports the test support package (tests/crawlertest).
check() {
  PYTHONPATH="$repo/tests" python3 "$repo/bench/recrawl/freshness_check.py" \
    --crawler "$build_dir/tools/crawler/crawler" --websim "$build_dir/tools/websim/websim" \
    --crawlsim "$build_dir/tools/crawlsim/crawlsim" "$@"
}
common=(--seconds 120 --warmup 60 --tune-seconds 2 --max-interval 300)
slow=(--rates gamma:0.5,0.0667 --visits-per-change 3 "${common[@]}")
fast=(--rates gamma:0.5,6 --visits-per-change 0.0333333 "${common[@]}")
case "$web" in
  "") check "${args[@]}" ;;
  slow) check "${slow[@]}" "${args[@]}" ;;
  fast) check "${fast[@]}" "${args[@]}" ;;
  both)
    status=0
    echo "== slow web"
    check "${slow[@]}" "${args[@]}" || status=$?
    echo "== fast web"
    check "${fast[@]}" "${args[@]}" || status=$?
    exit "$status" ;;
  *) echo "bench/recrawl: --web is slow, fast or both, not \"$web\"" >&2; exit 2 ;;
esac
