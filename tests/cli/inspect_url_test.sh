#!/usr/bin/env bash
# Contract test of `crawler inspect url`: the resolved href (or, with --canonical, the canonical
# form) on one line of stdout and exit 0; or "invalid URL: <reason>" on stderr, nothing on
# stdout, and exit 1. `--` before INPUT lets it start with '-'. Bad flags exit 2.
# Usage: inspect_url_test.sh CRAWLER_BINARY TESTS_DATA_DIR
set -uo pipefail

crawler=${1:?usage: inspect_url_test.sh CRAWLER_BINARY TESTS_DATA_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
checks=0

# check NAME EXPECTED_EXIT EXPECTED_STDOUT EXPECTED_STDERR_SUBSTRING ARGS...
check() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 4
  checks=$((checks + 1))
  "$crawler" inspect url "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
  if [ "$(cat "$tmp/out")" != "$want_out" ]; then
    fail "$name: stdout differs"
    diff <(printf '%s\n' "$want_out") "$tmp/out" >&2
  fi
  if [ -n "$want_out" ] && [ "$(wc -l <"$tmp/out")" -ne 1 ]; then
    fail "$name: stdout is not exactly one line"
  fi
  if [ -z "$want_err" ]; then
    [ ! -s "$tmp/err" ] || fail "$name: unexpected stderr: $(cat "$tmp/err")"
  else
    grep -qF -- "$want_err" "$tmp/err" || fail "$name: stderr lacks '$want_err': $(cat "$tmp/err")"
  fi
}

base=http://example.org/foo/bar?q#f

# Resolution against --base, as a browser resolves <a href>.
check "relative path" 0 "http://example.org/foo/baz" "" --base "$base" baz
check "dot segments" 0 "http://example.org/x" "" --base "$base" ../../x
check "query only" 0 "http://example.org/foo/bar?y" "" --base "$base" '?y'
check "scheme-relative" 0 "https://other.net/p" "" --base https://example.org/ //other.net/p
check "backslashes" 0 "http://other/p" "" --base "$base" '\\other\p'
check "absolute ignores base" 0 "https://a.example/" "" --base "$base" HTTPS://A.example:443

# `--` before an input that starts with '-'.
check "dash input after --" 0 "http://example.org/foo/-x" "" --base "$base" -- -x
check "dash-dash input after --" 0 "http://example.org/foo/--help" "" --base "$base" -- --help

# Without --base the input must be absolute.
check "absolute" 0 "http://xn--bcher-kva.example/a%20b" "" 'http://Bücher.example/a b'
check "ipv4 forms" 0 "http://127.0.0.1/" "" http://0x7f.1/
check "relative without base" 1 "" "invalid URL: " foo/bar
check "dash input without base" 1 "" "invalid URL: " -- -x

# Rejections: stderr "invalid URL: <reason>", exit 1, nothing on stdout.
check "bad host" 1 "" "invalid URL: " 'http://exa mple.org/'
check "bad port" 1 "" "invalid URL: port" 'http://example.org:99999/'
check "unsupported scheme" 1 "" 'invalid URL: unsupported scheme "mailto"' --base "$base" mailto:a@b
check "javascript" 1 "" 'invalid URL: unsupported scheme "javascript"' --base "$base" 'javascript:void(0)'
check "bad base" 1 "" "invalid base URL: " --base not-a-url x

# --canonical: the dedup / queue key.
check "canonical" 0 "http://example.org/a/~?b=1" "" --canonical \
  'HTTP://Example.ORG:80/x/../a/%7e?utm_source=news&b=1&JSESSIONID=abc#top'
check "canonical empty query" 0 "https://example.org/p" "" --canonical 'https://example.org/p?'
check "canonical with base" 0 "http://example.org/foo/p?x=%2F" "" --canonical --base "$base" 'p?x=%2f'
check "canonical keep tracking" 0 "http://h/?utm_source=x" "" --canonical --keep-tracking 'http://h/?utm_source=x'
check "canonical extra strip" 0 "http://h/?y" "" --canonical --strip sid -- 'http://h/?sid=1&y'
check "canonical invalid" 1 "" "invalid URL: " --canonical 'http://[::1/'

# Usage errors.
"$crawler" inspect url >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing INPUT: want exit 2"

if [ "$failures" -ne 0 ]; then
  echo "inspect url: $failures failure(s) in $checks checks" >&2
  exit 1
fi
echo "inspect url: all $checks checks passed"
