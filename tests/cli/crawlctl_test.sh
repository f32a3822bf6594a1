#!/usr/bin/env bash
# Contract test of the `crawlctl` binary (docs/crawlctl.md) where no server is needed: --help on
# every command, the exit codes of input errors (2) and of an unreachable scheduler (3, within
# --timeout). The calls against a server are covered by tests/unit/crawlctl (a fake Admin
# service). The dead scheduler is a closed port on 127.0.0.1.
# Usage: crawlctl_test.sh CRAWLCTL_BINARY
set -uo pipefail

crawlctl=${1:?usage: crawlctl_test.sh CRAWLCTL_BINARY}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

expect_rc() {  # want description command...: runs the command, checks its exit code
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, want $want (stderr: $(cat "$tmp/err"))"
}

# --help everywhere.
for cmd in "" "collections" "collections create" "collections update" "collections list" \
    "collections get" "collections pause" "collections resume" "collections delete" \
    "seeds" "seeds add" "stats" "explain"; do
  # shellcheck disable=SC2086
  expect_rc 0 "crawlctl $cmd --help" "$crawlctl" $cmd --help
  grep -q "Usage:" "$tmp/out" || fail "crawlctl $cmd --help: no usage"
done

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
server=(--server "127.0.0.1:$port" --timeout 3s)

# Input errors: exit 2, before any call.
printf 'name: x\nseeds: [https://a.example/]\nmax_pagez: 3\n' >"$tmp/unknown.yaml"
expect_rc 2 "unknown key" "$crawlctl" "${server[@]}" collections create -f "$tmp/unknown.yaml"
grep -q '"max_pagez"' "$tmp/err" || fail "unknown key not named: $(cat "$tmp/err")"
printf 'name: x\nseeds: [https://a.example/]\nmin_delay: -1s\n' >"$tmp/bad.yaml"
expect_rc 2 "bad value" "$crawlctl" "${server[@]}" collections create -f "$tmp/bad.yaml"
grep -q '"min_delay"' "$tmp/err" || fail "bad value's key not named: $(cat "$tmp/err")"
printf 'name: x\n' >"$tmp/noseeds.yaml"
expect_rc 2 "no seeds" "$crawlctl" "${server[@]}" collections create -f "$tmp/noseeds.yaml"
expect_rc 2 "missing file" "$crawlctl" "${server[@]}" collections create -f "$tmp/none.yaml"
expect_rc 2 "update of seeds" sh -c "printf 'seeds: [https://a.example/]\n' | \"\$0\" \"\$@\"" \
  "$crawlctl" "${server[@]}" collections update x -f -
expect_rc 2 "bad --timeout" "$crawlctl" --timeout soon collections list
expect_rc 2 "unreadable token file" "$crawlctl" "${server[@]}" --token-file "$tmp/none" \
  collections list
expect_rc 2 "missing seed file" "$crawlctl" "${server[@]}" seeds add x "$tmp/none.txt"
expect_rc 2 "unknown command" "$crawlctl" frobnicate
# A definition over the server's 4 MiB even without its seeds (a 10 MB pattern): the server
# would read it whole and answer RESOURCE_EXHAUSTED; it is the input that is too large.
python3 -c 'print("name: x\nseeds: [https://a.example/]\nexclude: [\"" + "a" * 10_000_000 + "\"]")' \
  >"$tmp/huge.yaml"
expect_rc 2 "a 10 MB pattern" "$crawlctl" "${server[@]}" collections create -f "$tmp/huge.yaml"
grep -q "more than the 4 MiB the server accepts in one request" "$tmp/err" \
  || fail "a 10 MB pattern: message: $(head -c 300 "$tmp/err")"
[ "$(wc -c <"$tmp/err")" -lt 1000 ] || fail "a 10 MB pattern: the message echoes the pattern"

# An unreachable scheduler: exit 3 with the address, well within the deadline.
start=$(date +%s)
expect_rc 3 "server down" "$crawlctl" "${server[@]}" collections list
grep -q "crawlctl: cannot reach the scheduler at 127.0.0.1:$port (UNAVAILABLE)" "$tmp/err" \
  || fail "server down: message: $(cat "$tmp/err")"
printf 'https://a.example/\n' | expect_rc 3 "seeds add, server down" \
  "$crawlctl" "${server[@]}" seeds add x -
[ $(($(date +%s) - start)) -le 8 ] || fail "server down: slower than two 3 s deadlines"

if [ "$failures" -ne 0 ]; then
  echo "crawlctl_test: $failures failure(s)" >&2
  exit 1
fi
echo "crawlctl_test: all checks passed"
