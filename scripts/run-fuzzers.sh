#!/usr/bin/env bash
# Runs libFuzzer targets in BUILD_DIR for SECONDS each, with their seed corpus from
# tests/fuzz/corpus/<name>/, and prints one summary line per target. The targets are every
# fuzz_<name> the build made (tests/fuzz/CMakeLists.txt builds one per *_fuzzer.cc), or the
# NAMEs given. Exits non-zero if any target crashed, or if there is none to run.
set -uo pipefail
build_dir=${1:?usage: run-fuzzers.sh BUILD_DIR SECONDS [NAME...]}
seconds=${2:?usage: run-fuzzers.sh BUILD_DIR SECONDS [NAME...]}
shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for bin in "$build_dir"/tests/fuzz/fuzz_*; do
    [ -f "$bin" ] && [ -x "$bin" ] && names+=("${bin##*/fuzz_}")
  done
fi
if [ ${#names[@]} -eq 0 ]; then
  echo "run-fuzzers: no fuzz_* target in $build_dir/tests/fuzz (configure with -DCRAWLER_FUZZ=ON" \
       "and build the fuzz_targets target)" >&2
  exit 1
fi
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
