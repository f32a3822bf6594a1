#!/usr/bin/env bash
# bench/estimators: gain capture of the re-visit policies, and of the change-rate estimators behind
# the optimal one, on the headline and on hard rate distributions (docs/recrawl.md §9). Simulated
# (tools/crawlsim), ~2 minutes on 2 cores at the default 20,000 pages x 120 days x 2 seeds.
#
# Usage: bench/estimators/run.sh [--build-dir DIR] [--no-build] [gain_capture.py options]
#   (--pages, --days, --seeds, --rates, --policies, --min-capture; see gain_capture.py --help)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir="$repo/build"
build=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exec python3 "$repo/bench/estimators/gain_capture.py" --help ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ "$build" = 1 ]; then
  cmake --build "$build_dir" --target crawlsim -j2 >/dev/null
fi
exec python3 "$repo/bench/estimators/gain_capture.py" \
  --crawlsim "$build_dir/tools/crawlsim/crawlsim" "${args[@]}"
