#!/usr/bin/env bash
# Contract test of `crawler inspect sitemap FILE`: one line per entry, "<loc>" or
# "<loc>\t<lastmod>" with lastmod in RFC 3339 UTC; summary and errors on stderr; exit status 0 /
# 1 (parse error, entries so far still printed) / 2 (unreadable file).
# Usage: inspect_sitemap_test.sh CRAWLER_BINARY TESTS_DATA_DIR
set -uo pipefail

crawler=${1:?usage: inspect_sitemap_test.sh CRAWLER_BINARY TESTS_DATA_DIR}
data=${2:?usage: inspect_sitemap_test.sh CRAWLER_BINARY TESTS_DATA_DIR}/sitemap
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

# check NAME EXPECTED_EXIT EXPECTED_STDOUT EXPECTED_STDERR_SUBSTRING ARGS...
check() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 4
  "$crawler" inspect sitemap "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
  if [ "$(cat "$tmp/out")" != "$want_out" ]; then
    fail "$name: stdout differs"
    diff <(printf '%s\n' "$want_out") "$tmp/out" >&2
  fi
  if [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err"; then
    fail "$name: stderr lacks '$want_err': $(cat "$tmp/err")"
  fi
}

tab=$'\t'

urlset_out="http://www.example.com/${tab}2005-01-01T00:00:00Z
http://www.example.com/catalog?item=12&desc=vacation_hawaii
http://www.example.com/catalog?item=73&desc=vacation_new_zealand${tab}2004-12-23T17:00:15Z
http://www.example.com/catalog?item=74&desc=vacation_newfoundland${tab}2004-12-23T18:00:15.5Z"
check "plain urlset" 0 "$urlset_out" "urlset: 4 URLs, 1 skipped" "$data/urlset.xml"

index_out="http://www.example.com/sitemap1.xml.gz${tab}2004-10-01T18:23:17Z
http://www.example.com/sitemap2.xml.gz"
check "sitemap index" 0 "$index_out" "sitemapindex: 2 sitemaps" "$data/sitemapindex.xml"

text_out="http://www.example.com/catalog?item=1
http://www.example.com/catalog?item=11
http://www.example.com/about"
check "text sitemap" 0 "$text_out" "text: 3 URLs" "$data/urls.txt"

# gzip is detected by content, not by name: the compressed copies keep misleading names too.
gzip -c "$data/urlset.xml" >"$tmp/urlset.xml.gz"
check "gzip urlset" 0 "$urlset_out" "urlset: 4 URLs (gzip), 1 skipped" "$tmp/urlset.xml.gz"
gzip -c "$data/urls.txt" >"$tmp/urls.txt"
check "gzip text named .txt" 0 "$text_out" "text: 3 URLs (gzip)" "$tmp/urls.txt"
gzip -c "$data/sitemapindex.xml" >"$tmp/index"
check "gzip index without extension" 0 "$index_out" "sitemapindex: 2 sitemaps (gzip)" "$tmp/index"

check "standard input" 0 "$text_out" "text: 3 URLs" - <"$data/urls.txt"
check "quiet has no summary" 0 "$text_out" "" --quiet "$data/urls.txt"
[ -s "$tmp/err" ] && fail "quiet: stderr not empty: $(cat "$tmp/err")"

truncated_out="http://www.example.com/one
http://www.example.com/two${tab}2024-01-31T00:00:00Z"
check "truncated XML keeps the prefix" 1 "$truncated_out" "error: malformed XML" \
  "$data/truncated.xml"
[ "$(tail -n 1 "$tmp/err")" = "$(grep '^error: ' "$tmp/err")" ] ||
  fail "truncated: the error is not the last stderr line"

# Cut inside the deflate data: whatever was printed must be the start of the full listing.
head -c 300 "$tmp/urlset.xml.gz" >"$tmp/cut.gz"
"$crawler" inspect sitemap "$tmp/cut.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "truncated gzip: exit $rc, want 1"
grep -q "^error: truncated gzip stream" "$tmp/err" || fail "truncated gzip: $(cat "$tmp/err")"
if [ -s "$tmp/out" ]; then
  printf '%s\n' "$urlset_out" | head -n "$(wc -l <"$tmp/out")" | cmp -s - "$tmp/out" ||
    fail "truncated gzip: output is not a prefix of the full listing"
fi

check "not a sitemap" 1 "" "error: not a sitemap" "$data/not_a_sitemap.html"

# Over the 50,000-URL limit: the first 50,000 are printed, then the error.
seq -f 'http://example.com/%g' 1 50001 >"$tmp/big.txt"
"$crawler" inspect sitemap "$tmp/big.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "50,001 URLs: exit $rc, want 1"
[ "$(wc -l <"$tmp/out")" -eq 50000 ] || fail "50,001 URLs: $(wc -l <"$tmp/out") lines, want 50000"
[ "$(tail -n 1 "$tmp/out")" = "http://example.com/50000" ] || fail "50,001 URLs: wrong last line"
grep -q "error: sitemap has more than 50000 URLs" "$tmp/err" || fail "50,001 URLs: $(cat "$tmp/err")"

check "missing file" 2 "" "error: cannot open" "$tmp/does-not-exist.xml"
check "directory" 2 "" "error: cannot read" "$tmp"
check "no FILE" 2 "" "FILE is required"

if [ "$failures" -ne 0 ]; then
  echo "inspect_sitemap_test: $failures failure(s)" >&2
  exit 1
fi
echo "inspect_sitemap_test: all checks passed"
