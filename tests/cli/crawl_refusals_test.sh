#!/usr/bin/env bash
# Contract test of `crawler crawl`'s plain refusals: a run whose every seed the SSRF guard refuses
# exits 1 saying so (stderr and stats JSON "all_seeds_refused"); a second crawl of a data dir in
# use exits 1 with a plain lock message naming the holder's pid; a foreign directory (files, no
# crawl) given as the data dir exits 1 with a plain message and is left as it was; a max_delay
# below min_delay exits 2. Loopback only, nothing listens.
# Usage: crawl_refusals_test.sh CRAWLER_BINARY
set -uo pipefail

crawler=${1:?usage: crawl_refusals_test.sh CRAWLER_BINARY}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
seed="http://127.0.0.1:$port/"

timeout 60 "$crawler" crawl --seeds "$seed" --data-dir "$tmp/refused" --quiet --no-warc \
  --stats-json "$tmp/refused.json" 2>"$tmp/refused.err"
rc=$?
[ "$rc" -eq 1 ] || fail "refused: exit $rc, want 1"
grep -qF "every seed was refused: 1 by the SSRF guard (address refused (loopback): 127.0.0.1" \
  "$tmp/refused.err" || fail "refused: stderr: $(cat "$tmp/refused.err")"
grep -q '"all_seeds_refused": true' "$tmp/refused.json" || fail "refused: $(cat "$tmp/refused.json")"

timeout 60 "$crawler" crawl --seeds "$seed" --allow-network 127.0.0.0/8 --data-dir "$tmp/busy" \
  --quiet --no-warc --run-for 20s 2>"$tmp/first.err" &
first=$!
for _ in $(seq 100); do grep -q "seeds" "$tmp/first.err" 2>/dev/null && break; sleep 0.1; done
timeout 60 "$crawler" crawl --seeds "$seed" --allow-network 127.0.0.0/8 --data-dir "$tmp/busy" \
  --quiet --no-warc 2>"$tmp/second.err"
rc=$?
kill "$first" 2>/dev/null
wait "$first" 2>/dev/null
[ "$rc" -eq 1 ] || fail "lock: exit $rc, want 1"
grep -qE "data dir .*busy is in use by another crawl \(pid [0-9]+\)" "$tmp/second.err" \
  || fail "lock: stderr: $(cat "$tmp/second.err")"

mkdir -p "$tmp/foreign"
echo "my notes" >"$tmp/foreign/notes.txt"
timeout 60 "$crawler" crawl --seeds "$seed" --data-dir "$tmp/foreign" --quiet 2>"$tmp/foreign.err"
rc=$?
[ "$rc" -eq 1 ] || fail "foreign: exit $rc, want 1"
grep -qF "data dir $tmp/foreign holds files but no crawl (e.g. \"notes.txt\")" "$tmp/foreign.err" \
  || fail "foreign: stderr: $(cat "$tmp/foreign.err")"
[ "$(ls -A "$tmp/foreign")" = "notes.txt" ] || fail "foreign: written into: $(ls -A "$tmp/foreign")"

# docs/configuration.md: max_delay is at least min_delay; settings that break it are refused
# before anything starts, exit 2 naming the key.
timeout 60 "$crawler" crawl --seeds "$seed" --data-dir "$tmp/delays" --quiet --min-delay 3s \
  --max-delay 1s 2>"$tmp/delays.err"
rc=$?
[ "$rc" -eq 2 ] || fail "min_delay > max_delay: exit $rc, want 2"
grep -q "max_delay (1s) must be >= min_delay (3s)" "$tmp/delays.err" \
  || fail "min_delay > max_delay: stderr: $(cat "$tmp/delays.err")"
[ ! -e "$tmp/delays" ] || fail "min_delay > max_delay: the data dir was made"

[ "$failures" -eq 0 ] || exit 1
echo "crawl refusals: all checks passed"
