#!/usr/bin/env bash
# bench/estimators: gain capture of the re-visit policies, and of the change-rate estimators behind
# the optimal one, on the headline and on hard rate distributions (docs/recrawl.md §9). Simulated
# (tools/crawlsim), ~35 minutes on 2 shared cores at the default 20,000 pages x 120 days x 2 seeds.
# Builds crawlsim in $BUILD_DIR (default: build/) first; arguments go to gain_capture.py
# (--pages, --days, --seeds, --rates, --policies, --min-capture; see its --help).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$repo/build}
cmake --build "$build_dir" --target crawlsim -j2 >/dev/null
exec python3 "$repo/bench/estimators/gain_capture.py" \
  --crawlsim "$build_dir/tools/crawlsim/crawlsim" "$@"
