#!/usr/bin/env bash
# bench/estimators: the re-visit policy on the grid of simulated webs it was not tuned on, beside
# uniform, the oracle and the information ceiling (grid.py; docs/recrawl.md §9). Simulated
# (tools/crawlsim); ~35 minutes on 2 shared cores at 5,000 pages x 92 cells x 3 seeds.
# Builds crawlsim in $BUILD_DIR (default: build/) first; arguments go to grid.py (--pages,
# --seeds, --jobs, --only, --previous, --csv, --no-fail; see its --help).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$repo/build}
cmake --build "$build_dir" --target crawlsim -j2 >/dev/null
exec python3 "$repo/bench/estimators/grid.py" \
  --crawlsim "$build_dir/tools/crawlsim/crawlsim" "$@"
