#!/usr/bin/env bash
# bench/changes: precision and recall of change detection and near-duplicate detection on websim's
# labelled change corpus, next to a MinHash baseline (docs/fingerprint.md, "Measured on a labelled
# change corpus"). ~3 s at the default 200 pages. Builds change_bench in $BUILD_DIR (default:
# build/) first; arguments go to change_bench (--pages N, --pairs N, --seed S, --minhash-words W,
# --furniture-markup marked|plain,
# --min-precision P, --min-recall R).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$repo/build}
cmake --build "$build_dir" --target change_bench -j2 >/dev/null
exec "$build_dir/bench/changes/change_bench" --pages 200 --pairs 100 "$@"
