#!/usr/bin/env bash
# End-to-end test of the websim binary: offline outputs, then a served request over bash's
# /dev/tcp, the request log, and shutdown on SIGTERM and on --max-seconds. No sleeps: the
# script blocks on a FIFO until websim says it is listening.
set -euo pipefail
websim=$1
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "websim_cli_test: FAIL: $*" >&2; exit 1; }

# --print-seeds prints and exits.
seeds=$("$websim" --hosts 3 --pages 10 --seed-hosts 2 --print-seeds)
[ "$seeds" = $'http://h0.websim.test/\nhttp://h1.websim.test/' ] || fail "print-seeds gave: $seeds"

# Bad options are usage errors (exit 2), not crashes.
set +e
"$websim" --hosts 0 --print-seeds 2>/dev/null; rc=$?
set -e
[ "$rc" = 2 ] || fail "--hosts 0 exited $rc, want 2"

# --export, --truth and --seeds-file with --no-serve.
"$websim" --hosts 2 --pages 10 --sitemap-only 1 --export "$tmp/site" --truth "$tmp/truth.tsv" \
  --seeds-file "$tmp/seeds.txt" --no-serve
[ -f "$tmp/site/h1.websim.test/robots.txt" ] || fail "export: no robots.txt"
[ -f "$tmp/site/h1.websim.test/sitemap.xml" ] || fail "export: no sitemap.xml"
[ -f "$tmp/site/h0.websim.test/index.html" ] || fail "export: no root page"
files=$(find "$tmp/site" -type f | wc -l)
[ "$files" = 26 ] || fail "export wrote $files files, want 2 hosts x (11 pages + 2) = 26"
grep -q $'^seed\thttp://h0.websim.test/$' "$tmp/truth.tsv" || fail "truth lacks seed line"
[ "$(grep -c $'^sitemap_only\t' "$tmp/truth.tsv")" = 2 ] || fail "truth: want 2 sitemap_only"
[ "$(cat "$tmp/seeds.txt")" = $'http://h0.websim.test/\nhttp://h1.websim.test/' ] ||
  fail "seeds file: $(cat "$tmp/seeds.txt")"

# --equal-host-sizes: every host has as many pages in the ground truth.
per_host=$("$websim" --hosts 12 --pages 60 --equal-host-sizes --print-truth |
  awk -F'\t' '$1 == "page" { split($2, u, "/"); n[u[3]]++ } END { for (h in n) print n[h] }' |
  sort -u)
[ "$per_host" = 52 ] || fail "--equal-host-sizes: pages per host $(echo $per_host)"

# Scripted sites: the flags reach the model, the truth and the export.
"$websim" --hosts 2 --pages 10 --scripted-hosts 1 --hostile-hosts 1 --export "$tmp/scripted" \
  --truth "$tmp/scripted.tsv" --no-serve
[ -f "$tmp/scripted/h0.websim.test/_app.js" ] || fail "scripted export: no _app.js"
[ -f "$tmp/scripted/h1.websim.test/_links/9.json" ] || fail "scripted export: no _links/9.json"
[ -f "$tmp/scripted/h1.websim.test/_hostile/loop.html" ] || fail "scripted export: no hostile page"
[ "$(grep -c $'^hostile\t' "$tmp/scripted.tsv")" = 16 ] || fail "truth: want 2 x 8 hostile"
grep -q ' render_only=' "$tmp/scripted.tsv" || fail "truth: no render_only count"
if grep -q 'render_only' "$tmp/truth.tsv"; then fail "truth without scripted hosts names render_only"; fi
set +e
"$websim" --scripted-hosts 2 --print-seeds 2>/dev/null; rc=$?
set -e
[ "$rc" = 2 ] || fail "--scripted-hosts 2 exited $rc, want 2"

# Serve: wait for the "listening" line through a FIFO.
mkfifo "$tmp/stderr"
"$websim" --hosts 2 --pages 10 --port-file "$tmp/port" --log "$tmp/log.tsv" \
  --max-seconds 60 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/stderr"
read -r -t 30 -u 3 line || fail "websim did not report listening"
[[ "$line" =~ ^websim\ listening\ on\ 127\.0\.0\.1:([0-9]+) ]] || fail "unexpected: $line"
port=${BASH_REMATCH[1]}
[ "$(cat "$tmp/port")" = "$port" ] || fail "port file $(cat "$tmp/port") != $port"

exec 4<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /robots.txt HTTP/1.1\r\nHost: h1.websim.test\r\nConnection: close\r\n\r\n' >&4
response=$(timeout 10 cat <&4) || fail "no response"
exec 4<&-
[[ "$response" == "HTTP/1.1 200 OK"* ]] || fail "status line: ${response%%$'\r'*}"
[[ "$response" == *"Disallow: /private/"* ]] || fail "robots.txt body missing"

kill -TERM "$pid"
wait "$pid" || fail "websim exited $? on SIGTERM"
pid=""
read -r -t 10 -u 3 line || fail "no shutdown message"
[[ "$line" == "websim: stopping on"* ]] || fail "shutdown message: $line"
exec 3<&-
[ "$(wc -l < "$tmp/log.tsv")" = 1 ] || fail "log has $(wc -l < "$tmp/log.tsv") lines, want 1"
IFS=$'\t' read -r ns host target status bytes conn method partition wall < "$tmp/log.tsv"
[[ "$ns" =~ ^[0-9]+$ ]] || fail "log time: $ns"
# The wall clock's nanoseconds, within a minute of now.
[[ "$wall" =~ ^[0-9]+$ ]] && (( ${wall:0:10} > $(date +%s) - 60 && ${wall:0:10} <= $(date +%s) )) ||
  fail "log wall time: $wall"
[ "$host $target $status $method $partition" = "h1.websim.test /robots.txt 200 GET -" ] ||
  fail "log line: $(cat "$tmp/log.tsv")"

# Changing pages: bad flag values are usage errors; the rates file and change log list every page.
for bad in "--change-rates poisson:1" "--change-rates fixed:-1" "--time-scale 2"; do
  set +e
  # shellcheck disable=SC2086
  "$websim" --hosts 1 --pages 1 $bad --no-serve 2>/dev/null; rc=$?
  set -e
  [ "$rc" = 2 ] || fail "$bad exited $rc, want 2"
done
"$websim" --hosts 2 --pages 10 --change-rates gamma:2,0.5 --time-scale 5 \
  --rates-file "$tmp/rates.tsv" --change-log "$tmp/changes.tsv" --no-serve
[ "$(wc -l < "$tmp/rates.tsv")" = 20 ] || fail "rates file: $(wc -l < "$tmp/rates.tsv") lines"
grep -qP '^http://h1\.websim\.test/\t[0-9.e+-]+$' "$tmp/rates.tsv" || fail "rates file format"
[ "$(head -1 "$tmp/changes.tsv")" = "# websim change log v1" ] || fail "change log header"
[ "$(grep -vc '^#' "$tmp/changes.tsv")" = 20 ] || fail "change log: want 20 pages"
grep -qP '^http://h0\.websim\.test/\t[0-9.e+-]+\t0\t$' "$tmp/changes.tsv" ||
  fail "change log at time 0 must list no changes"
# Served: the change log is written at exit, with the same rates as the rates file.
"$websim" --hosts 2 --pages 10 --change-rates gamma:2,0.5 --time-scale 5 \
  --change-log "$tmp/served.tsv" --max-seconds 0.2 2>/dev/null || fail "changing serve exit"
[ "$(grep -v '^#' "$tmp/served.tsv" | cut -f1,2)" = "$(cat "$tmp/rates.tsv")" ] ||
  fail "served change log rates differ from the rates file"

# --max-seconds ends a forgotten server by itself.
"$websim" --hosts 1 --pages 1 --max-seconds 0.2 2>/dev/null || fail "--max-seconds exit status"
echo "websim_cli_test: OK"
