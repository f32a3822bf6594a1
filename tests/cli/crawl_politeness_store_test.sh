#!/usr/bin/env bash
# Contract test of `crawler crawl --politeness` (docs/configuration.md): a bad store URL exits 2
# naming the key; an unreachable Redis exits 1 saying which address and leaves no data dir
# behind; a password file is read and sent (a real redis-server with requirepass, started here
# on a free loopback port and stopped at the end); a wrong password is refused by name; the stats
# JSON says which store held the timers and how many claims it granted. Loopback only.
# Usage: crawl_politeness_store_test.sh CRAWLER_BINARY
set -uo pipefail

crawler=${1:?usage: crawl_politeness_store_test.sh CRAWLER_BINARY}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

# A free loopback port, by the rule every test uses (tests/crawlertest/ports.py).
free_port() {
  PYTHONPATH="$(dirname "${BASH_SOURCE[0]}")/.." python3 -c \
    'from crawlertest.ports import free_port; print(free_port())'
}
dead=$(free_port)  # nothing listens: the crawled "site" and the unreachable Redis
common=(--seeds "http://127.0.0.1:$dead/" --allow-network 127.0.0.0/8 --no-warc --quiet
        --no-robots --max-attempts 1)

# 1. Not a store URL: exit 2, naming the key.
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/bad" --politeness memcached://x \
  2>"$tmp/bad.err"
rc=$?
[ "$rc" -eq 2 ] || fail "bad url: exit $rc, want 2"
grep -qF 'politeness: bad Redis address "memcached://x"' "$tmp/bad.err" \
  || fail "bad url: stderr: $(cat "$tmp/bad.err")"

# 2. Redis unreachable at start: exit 1, the address named, nothing created.
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/down" \
  --politeness "redis://127.0.0.1:$dead" 2>"$tmp/down.err"
rc=$?
[ "$rc" -eq 1 ] || fail "unreachable: exit $rc, want 1"
grep -qF "politeness store: cannot connect to redis://127.0.0.1:$dead" "$tmp/down.err" \
  || fail "unreachable: stderr: $(cat "$tmp/down.err")"
[ ! -e "$tmp/down" ] || fail "unreachable: the data dir was created: $(ls "$tmp/down")"

# 3. A password file without a Redis store is a mistake worth saying.
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/nostore" \
  --redis-password-file "$tmp/none" 2>"$tmp/nostore.err"
rc=$?
[ "$rc" -eq 2 ] || fail "password without store: exit $rc, want 2"
grep -qF "redis_password_file is given but politeness is in-process" "$tmp/nostore.err" \
  || fail "password without store: stderr: $(cat "$tmp/nostore.err")"

# 4. A real Redis that wants a password.
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$tmp" --save "" --appendonly no \
  --requirepass s3cret --logfile "$tmp/redis.log" &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null && break
  sleep 0.1
done
store=(--politeness "redis://127.0.0.1:$redis_port")

echo wrong > "$tmp/wrong.pw"
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/wrong" "${store[@]}" \
  --redis-password-file "$tmp/wrong.pw" 2>"$tmp/wrong.err"
rc=$?
[ "$rc" -eq 1 ] || fail "wrong password: exit $rc, want 1"
grep -qF "refused AUTH" "$tmp/wrong.err" || fail "wrong password: stderr: $(cat "$tmp/wrong.err")"

printf 's3cret\n' > "$tmp/right.pw"
timeout 60 "$crawler" crawl "${common[@]}" --data-dir "$tmp/right" "${store[@]}" \
  --redis-password-file "$tmp/right.pw" --stats-json "$tmp/right.json" 2>"$tmp/right.err"
rc=$?
[ "$rc" -eq 0 ] || fail "password: exit $rc (stderr: $(cat "$tmp/right.err"))"
python3 - "$tmp/right.json" "$redis_port" <<'PY' || fail "password: stats: $(cat "$tmp/right.json")"
import json, sys
p = json.load(open(sys.argv[1]))["politeness"]
assert p["store"] == f"redis://127.0.0.1:{sys.argv[2]}", p
assert p["granted"] >= 1 and p["releases"] == p["granted"] and p["round_trips"] >= 2, p
assert p["unavailable"] == 0 and p["outages"] == 0, p
PY

[ "$failures" -eq 0 ] || exit 1
echo "crawl politeness store: all checks passed"
