#!/usr/bin/env bash
# Contract test of `crawler inspect robots --file PATH --agent TOKEN URL...`: one stdout line per
# valid URL, in the order given, TAB-separated: "allowed|disallowed", the URL as given, and, when
# a rule decided, the rule as written ("Disallow: /private") and "(line N)". Invalid URLs are
# reported on stderr ("invalid URL: ...") with exit 1; an unreadable file or bad flags exit 2.
# Usage: inspect_robots_test.sh CRAWLER_BINARY TESTS_DATA_DIR
set -uo pipefail

crawler=${1:?usage: inspect_robots_test.sh CRAWLER_BINARY TESTS_DATA_DIR}
data=${2:?usage: inspect_robots_test.sh CRAWLER_BINARY TESTS_DATA_DIR}
robots="$data/robots/inspect_example.txt"
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
failed_checks=0
checks=0
tab=$'\t'

# check NAME EXPECTED_EXIT EXPECTED_STDOUT EXPECTED_STDERR_SUBSTRING ARGS...
# EXPECTED_STDOUT is compared exactly (lines joined by newlines); an empty EXPECTED_STDERR
# means stderr must be empty.
check() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 4
  checks=$((checks + 1))
  local failures_before=$failures
  "$crawler" inspect robots "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
  if [ "$(cat "$tmp/out")" != "$want_out" ]; then
    fail "$name: stdout differs (want < > got)"
    diff <(printf '%s\n' "$want_out") "$tmp/out" >&2
  fi
  if [ -z "$want_err" ]; then
    [ ! -s "$tmp/err" ] || fail "$name: unexpected stderr: $(cat "$tmp/err")"
  else
    grep -qF -- "$want_err" "$tmp/err" || fail "$name: stderr lacks '$want_err': $(cat "$tmp/err")"
  fi
  [ "$failures" -eq "$failures_before" ] || failed_checks=$((failed_checks + 1))
}

[ -f "$robots" ] || { echo "FAIL: missing test data $robots" >&2; exit 1; }

# One line per URL, in the order given (not sorted, duplicates kept).
check "order and fields" 0 \
"disallowed${tab}https://www.example.com/private/x${tab}Disallow: /private${tab}(line 14)
allowed${tab}https://www.example.com/private/public/y${tab}Allow: /private/public${tab}(line 15)
allowed${tab}https://www.example.com/elsewhere
disallowed${tab}https://www.example.com/private/x${tab}Disallow: /private${tab}(line 14)" \
  "" --file "$robots" --agent MyBot \
  https://www.example.com/private/x https://www.example.com/private/public/y \
  https://www.example.com/elsewhere https://www.example.com/private/x

# The agent token is case-insensitive and may carry a version; the rule is shown as written,
# matching is on the canonical form (%7E is ~).
check "agent case and version; encoded pattern" 0 \
"disallowed${tab}https://www.example.com/~joe/a${tab}Disallow: /%7Ejoe/${tab}(line 16)" \
  "" --file "$robots" --agent mybot/2.0 https://www.example.com/~joe/a

# Agents without a group of their own get the * group (RFC 9309 §5.1).
check "the * group" 0 \
"disallowed${tab}https://www.example.com/a/b.gif${tab}Disallow: *.gif\$${tab}(line 4)
allowed${tab}https://www.example.com/a/b.gif?x
disallowed${tab}/example/x${tab}Disallow: /example/${tab}(line 5)
allowed${tab}https://www.example.com/publications/p${tab}Allow: /publications/${tab}(line 6)" \
  "" --file "$robots" --agent OtherBot \
  https://www.example.com/a/b.gif https://www.example.com/a/b.gif?x /example/x \
  https://www.example.com/publications/p

check "foobot" 0 \
"disallowed${tab}https://www.example.com/${tab}Disallow: /${tab}(line 9)
allowed${tab}https://www.example.com/example/page.html${tab}Allow: /example/page.html${tab}(line 10)" \
  "" --file "$robots" --agent foobot https://www.example.com/ https://www.example.com/example/page.html

# /robots.txt is always allowed, with no rule.
check "robots.txt" 0 "allowed${tab}https://www.example.com/robots.txt" "" \
  --file "$robots" --agent foobot https://www.example.com/robots.txt

# An invalid URL: reported on stderr, exit 1, the other URLs still printed in order.
check "invalid URL" 1 \
"allowed${tab}https://www.example.com/a
allowed${tab}https://www.example.com/b" \
  "invalid URL:" --file "$robots" --agent MyBot https://www.example.com/a not-a-url \
  https://www.example.com/b

# An empty file allows everything.
: >"$tmp/empty.txt"
check "empty file" 0 "allowed${tab}https://www.example.com/x" "" \
  --file "$tmp/empty.txt" --agent MyBot https://www.example.com/x

# Usage errors: exit 2.
check "missing file" 2 "" "cannot read robots.txt file" \
  --file "$tmp/does-not-exist.txt" --agent MyBot https://www.example.com/x
check "directory" 2 "" "cannot read robots.txt file" \
  --file "$tmp" --agent MyBot https://www.example.com/x
check "no --agent" 2 "" "agent" --file "$robots" https://www.example.com/x
check "no URL" 2 "" "urls" --file "$robots" --agent MyBot

# The help documents the line format.
"$crawler" inspect robots --help >"$tmp/help" 2>&1
checks=$((checks + 1))
if ! grep -qF "allowed|disallowed <TAB> URL" "$tmp/help"; then
  fail "--help does not document the format"
  failed_checks=$((failed_checks + 1))
fi

if [ "$failed_checks" -ne 0 ]; then
  echo "inspect_robots_test: $failed_checks of $checks checks failed" >&2
  exit 1
fi
echo "inspect_robots_test: all $checks checks passed"
