#!/usr/bin/env bash
# Contract test of `crawler crawl`'s retry settings (docs/configuration.md): a host whose
# robots.txt cannot be fetched holds its URLs back as "waiting" (progress lines, stats JSON
# "complete": false) for robots_retry_after; with --max-attempts 1 they are final at once and the
# crawl ends complete. Bad values exit 2 naming the setting. The dead host is a closed port on
# 127.0.0.1: nothing leaves the machine.
# Usage: crawl_retry_test.sh CRAWLER_BINARY
set -uo pipefail

crawler=${1:?usage: crawl_retry_test.sh CRAWLER_BINARY}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

# A loopback port with nothing listening: bound, then closed.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
seed="http://127.0.0.1:$port/"
common=(--seeds "$seed" --allow-network 127.0.0.0/8 --no-warc)

stats_value() {  # file key: the value of "key": in the stats JSON
  python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"
}

# 1. Defaults: the URL waits for robots.txt to be fetched again (30 min); a bounded run shows it.
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/wait" --progress-interval 200ms \
  --run-for 1s --stats-json "$tmp/wait.json" 2>"$tmp/wait.err"
rc=$?
[ "$rc" -eq 0 ] || fail "defaults: exit $rc (stderr: $(cat "$tmp/wait.err"))"
grep -qE 'queued 0  waiting 1  in flight' "$tmp/wait.err" \
  || fail "defaults: no progress line with 'waiting 1': $(cat "$tmp/wait.err")"
[ "$(stats_value "$tmp/wait.json" complete)" = "false" ] \
  || fail "defaults: the crawl claims to be complete with a URL waiting"
[ "$(stats_value "$tmp/wait.json" queued)" = "1" ] \
  || fail "defaults: stats queued $(stats_value "$tmp/wait.json" queued), want 1"

# 2. --max-attempts 1: the first verdict is final; the crawl ends complete, at once.
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/once" --quiet --max-attempts 1 \
  --robots-retry-after 1m --retry-backoff 1s --retry-backoff-max 2s \
  --stats-json "$tmp/once.json" 2>"$tmp/once.err"
rc=$?
[ "$rc" -eq 0 ] || fail "max-attempts 1: exit $rc (stderr: $(cat "$tmp/once.err"))"
[ "$(stats_value "$tmp/once.json" complete)" = "true" ] \
  || fail "max-attempts 1: the crawl did not end complete: $(cat "$tmp/once.json")"
[ "$(stats_value "$tmp/once.json" queued)" = "0" ] || fail "max-attempts 1: URLs still queued"
grep -qF "${seed}"$'\t0\t0\t0\trobots_denied\trobots.txt unavailable (connect_failed)' \
  "$tmp/once/crawl.log" || fail "max-attempts 1: crawl log: $(cat "$tmp/once/crawl.log")"

# 3. Bad values: exit 2, the setting named, nothing crawled.
bad() {  # expected stderr substring, flags...
  local want=$1
  shift
  timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/bad" --quiet "$@" \
    >/dev/null 2>"$tmp/bad.err"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$*: exit $rc, want 2"
  grep -qF -- "$want" "$tmp/bad.err" || fail "$*: stderr lacks '$want': $(cat "$tmp/bad.err")"
}
bad "max_attempts must be in [1, 100]" --max-attempts 0
bad "max_attempts must be in [1, 100]" --max-attempts 101
bad "--retry-backoff: not a duration" --retry-backoff soon
bad "retry_backoff_max >= retry_backoff" --retry-backoff 2h --retry-backoff-max 1h
bad "robots_retry_after must be in [1m, 24h]" --robots-retry-after 5s
bad "robots_retry_after must be in [1m, 24h]" --robots-retry-after 25h
[ ! -e "$tmp/bad/crawl.log" ] || fail "a rejected configuration still crawled"

if [ "$failures" -ne 0 ]; then
  echo "crawl_retry_test: $failures failure(s)" >&2
  exit 1
fi
echo "crawl_retry_test: all checks passed"
