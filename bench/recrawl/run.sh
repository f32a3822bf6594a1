#!/usr/bin/env bash
# bench/recrawl: the end-to-end freshness check of re-visiting (docs/architecture.md §7;
# docs/recrawl.md §11). The standalone crawler re-visits websim pages that change as Poisson
# processes, once per policy (--policies, default optimal and uniform; in parallel, ~3 minutes)
# under one budget, a hard cap for every policy; the spend and freshness each achieves, measured
# from websim's truth, are reported side by side (freshness per unit of spend) and compared with
# what tools/crawlsim predicts for the same rates and budget. Not a timed test: it is run by hand
# (or `make bench-recrawl`); ctest runs a 40 s version (e2e.revisit_spend).
#
# Usage: bench/recrawl/run.sh [--build-dir DIR] [--no-build] [freshness_check.py options]
#   (bench/recrawl/freshness_check.py --help lists them: --seconds, --rates, --seed, --out ...)
# Exit status: 0 every check passed, 1 one failed, 2 setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir="$repo/build-bench"
build=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"
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
PYTHONPATH="$repo/tests" exec python3 "$repo/bench/recrawl/freshness_check.py" \
  --crawler "$build_dir/tools/crawler/crawler" --websim "$build_dir/tools/websim/websim" \
  --crawlsim "$build_dir/tools/crawlsim/crawlsim" "${args[@]}"
