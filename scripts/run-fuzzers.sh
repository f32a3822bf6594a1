#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, with its seed corpus from
# tests/fuzz/corpus/<name>/, and prints one summary line per target. Exits non-zero if any
# target crashed.
set -uo pipefail
build_dir=${1:?usage: run-fuzzers.sh BUILD_DIR SECONDS [NAME...]}
seconds=${2:?usage: run-fuzzers.sh BUILD_DIR SECONDS [NAME...]}
shift 2
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(url robots html sitemap http warc)
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
for name in "${names[@]}"; do
  bin="$build_dir/tests/fuzz/fuzz_$name"
  work="$build_dir/corpus/$name"
  mkdir -p "$work" "$build_dir/artifacts/$name"
  seeds="$root/tests/fuzz/corpus/$name"
  [ -d "$seeds" ] || seeds=""
  log="$build_dir/fuzz_$name.log"
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build_dir/artifacts/$name/" "$work" $seeds >"$log" 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  crashes=$(find "$build_dir/artifacts/$name" -type f | wc -l)
  echo "fuzz_$name: seconds=$seconds executions=${execs:-?} crashes=$crashes exit=$rc (log: $log)"
  if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then status=1; fi
done
exit $status
