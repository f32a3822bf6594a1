#!/usr/bin/env bash
# Contract test of `crawler crawl` on a data dir whose file system fills up (a small tmpfs the
# test mounts in a mount namespace of its own: `unshare -m` as root, `unshare -rm` otherwise;
# skipped, exit 77, where neither may mount). WARC files and state share the small file system.
#  - min_free_bytes 0: the crawl runs into the full disk and stops at the first failed write with
#    exit 1 and a message naming the path and the cause (not an abort); resumed on a larger file
#    system it finishes, and every page of the site is archived (nothing lost).
#  - min_free_bytes above what is left: the crawl stops cleanly before the disk is full, exit 1
#    naming the directory; resumed, it finishes, and no page is archived twice.
# Loopback only (websim). Usage: crawl_disk_full_test.sh CRAWLER_BINARY WEBSIM_BINARY
set -uo pipefail

crawler=${1:?usage: crawl_disk_full_test.sh CRAWLER_BINARY WEBSIM_BINARY}
websim=${2:?usage: crawl_disk_full_test.sh CRAWLER_BINARY WEBSIM_BINARY}

if [ "${CRAWL_DISK_FULL_NS:-}" != 1 ]; then
  for flags in -m -rm; do
    if unshare "$flags" true 2>/dev/null; then
      CRAWL_DISK_FULL_NS=1 exec unshare "$flags" bash "$0" "$@"
    fi
  done
  echo "SKIP: cannot create a mount namespace here (unshare -m / -rm refused)"
  exit 77
fi

source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

"$websim" --hosts 10 --pages 200 --page-bytes 4000,8000 --port-file "$tmp/port" \
  --seeds-file "$tmp/seeds.txt" --max-seconds 300 2>"$tmp/websim.err" &
websim_pid=$!
trap 'kill "$websim_pid" 2>/dev/null; umount "$tmp"/small-* 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")

crawl() {  # crawl DATA_DIR STDERR_FILE [FLAGS...]
  timeout 120 "$crawler" crawl --seeds "$tmp/seeds.txt" --data-dir "$1" \
    --connect-to "127.0.0.1:$port" --allow-network 127.0.0.0/8 --min-delay 0 --delay-factor 0 \
    --quiet "${@:3}" 2>"$2"
}

small_fs() {  # small_fs DIR SIZE: a tmpfs of SIZE at DIR
  mkdir -p "$1"
  if ! mount -t tmpfs -o "size=$2" tmpfs "$1" 2>"$tmp/mount.err"; then
    echo "SKIP: cannot mount a tmpfs here: $(cat "$tmp/mount.err")"
    exit 77
  fi
}

# URL<TAB>count of the response records in the WARC files of a directory.
responses() {
  python3 - "$1" <<'PY'
import collections, glob, gzip, sys
counts = collections.Counter()
for path in glob.glob(sys.argv[1] + "/*.warc.gz"):
    with gzip.open(path, "rb") as f:
        data = f.read()
    for record in data.split(b"WARC/1.1\r\n")[1:]:
        head = record.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
        fields = dict(line.split(": ", 1) for line in head.split("\r\n") if ": " in line)
        if fields.get("WARC-Type") == "response" and "/robots.txt" not in fields["WARC-Target-URI"]:
            counts[fields["WARC-Target-URI"]] += 1
for url, n in sorted(counts.items()):
    print(f"{url}\t{n}")
PY
}

# The reference: the whole site crawled on a large file system.
crawl "$tmp/reference" "$tmp/reference.err"
rc=$?
[ "$rc" -eq 0 ] || fail "reference crawl: exit $rc: $(cat "$tmp/reference.err")"
responses "$tmp/reference/warc" | cut -f1 >"$tmp/reference.urls"
pages=$(wc -l <"$tmp/reference.urls")
[ "$pages" -gt 500 ] || fail "reference crawl archived only $pages pages"

# 1. Into the full disk.
small_fs "$tmp/small-full" 3m
crawl "$tmp/small-full/data" "$tmp/full.err" --min-free-bytes 0
rc=$?
[ "$rc" -eq 1 ] || fail "full disk: exit $rc, want 1: $(cat "$tmp/full.err")"
grep -qE "^crawl: .*$tmp/small-full/data.*No space left on device" "$tmp/full.err" \
  || fail "full disk: no message naming the path and the cause: $(cat "$tmp/full.err")"
grep -q "Assertion" "$tmp/full.err" && fail "full disk: an assertion: $(cat "$tmp/full.err")"
cp -a "$tmp/small-full/data" "$tmp/full-resumed"
crawl "$tmp/full-resumed" "$tmp/full-resumed.err"
rc=$?
[ "$rc" -eq 0 ] || fail "full disk, resumed: exit $rc: $(cat "$tmp/full-resumed.err")"
responses "$tmp/full-resumed/warc" | cut -f1 >"$tmp/full.urls"
missing=$(comm -23 "$tmp/reference.urls" "$tmp/full.urls" | wc -l)
[ "$missing" -eq 0 ] || fail "full disk, resumed: $missing pages never archived"

# 2. Stopped before the disk is full.
small_fs "$tmp/small-guard" 6m
crawl "$tmp/small-guard/data" "$tmp/guard.err" --min-free-bytes 3000000
rc=$?
[ "$rc" -eq 1 ] || fail "low space: exit $rc, want 1: $(cat "$tmp/guard.err")"
grep -qE "^crawl: only [0-9.]+ MiB free in $tmp/small-guard/data.*below min_free_bytes" \
  "$tmp/guard.err" || fail "low space: message: $(cat "$tmp/guard.err")"
cp -a "$tmp/small-guard/data" "$tmp/guard-resumed"
crawl "$tmp/guard-resumed" "$tmp/guard-resumed.err"
rc=$?
[ "$rc" -eq 0 ] || fail "low space, resumed: exit $rc: $(cat "$tmp/guard-resumed.err")"
responses "$tmp/guard-resumed/warc" >"$tmp/guard.counts"
missing=$(comm -23 "$tmp/reference.urls" <(cut -f1 "$tmp/guard.counts") | wc -l)
[ "$missing" -eq 0 ] || fail "low space, resumed: $missing pages never archived"
twice=$(awk -F'\t' '$2 > 1' "$tmp/guard.counts" | wc -l)
[ "$twice" -eq 0 ] || fail "low space, resumed: $twice pages archived more than once"

[ "$failures" -eq 0 ] || exit 1
echo "crawl disk full: all checks passed ($pages pages)"
