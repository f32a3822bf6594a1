#!/usr/bin/env bash
# Contract test of `crawler warc verify FILE...`: one line per file, "FILE: OK, ..." or
# "FILE: DAMAGED at offset N: <reason> ..."; exit 0 when every file is intact, 1 when any is
# damaged, 2 when a file cannot be read. The files are written here (Python 3 stdlib: gzip
# members, SHA-1 digests in base32), independently of the crawler's writer.
# Usage: warc_verify_test.sh CRAWLER_BINARY
set -uo pipefail

crawler=${1:?usage: warc_verify_test.sh CRAWLER_BINARY}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

python3 - "$tmp" <<'PY'
import base64, gzip, hashlib, sys

def digest(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()

def record(n):
    body = b"<p>page %d</p>" % n
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (b"WARC/1.1\r\nWARC-Type: response\r\n"
            b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n" % n +
            b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.test/%d\r\n" % n +
            b"Content-Type: application/http;msgtype=response\r\n" +
            b"WARC-Payload-Digest: " + digest(body).encode() + b"\r\n" +
            b"WARC-Block-Digest: " + digest(block).encode() + b"\r\n" +
            b"Content-Length: %d\r\n\r\n" % len(block))
    return head + block + b"\r\n\r\n"

members = [gzip.compress(record(n), mtime=0) for n in range(3)]
good = b"".join(members)
out = sys.argv[1]
open(out + "/good.warc.gz", "wb").write(good)
open(out + "/cut.warc.gz", "wb").write(good[:-5])
flipped = bytearray(good)
flipped[len(members[0]) + 40] ^= 0x01
open(out + "/flipped.warc.gz", "wb").write(bytes(flipped))
open(out + "/offsets", "w").write("%d %d\n" % (len(members[0]) + len(members[1]), len(members[0])))
PY
read -r last_member second_member <"$tmp/offsets"

"$crawler" warc verify "$tmp/good.warc.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "good: exit $rc, want 0 ($(cat "$tmp/out" "$tmp/err"))"
grep -qxF "$tmp/good.warc.gz: OK, 3 records, 3 block digests and 3 payload digests checked" \
  "$tmp/out" || fail "good: $(cat "$tmp/out")"

"$crawler" warc verify "$tmp/good.warc.gz" "$tmp/cut.warc.gz" "$tmp/flipped.warc.gz" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "damaged: exit $rc, want 1"
[ "$(wc -l <"$tmp/out")" -eq 3 ] || fail "damaged: not one line per file: $(cat "$tmp/out")"
grep -q "^$tmp/good.warc.gz: OK, 3 records" "$tmp/out" || fail "damaged: good file: $(cat "$tmp/out")"
grep -q "^$tmp/cut.warc.gz: DAMAGED at offset $last_member: .*(after 2 intact records)$" \
  "$tmp/out" || fail "cut: $(cat "$tmp/out")"
grep -q "^$tmp/flipped.warc.gz: DAMAGED at offset $second_member: .*(after 1 intact records)$" \
  "$tmp/out" || fail "flipped: $(cat "$tmp/out")"

"$crawler" warc verify "$tmp/none.warc.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "missing: exit $rc, want 2"
grep -q "^$tmp/none.warc.gz: cannot read: " "$tmp/out" || fail "missing: $(cat "$tmp/out")"

"$crawler" warc verify >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "no files: want exit 2"

[ "$failures" -eq 0 ] || exit 1
echo "warc verify: all checks passed"
