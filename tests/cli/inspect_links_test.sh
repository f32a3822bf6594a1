#!/usr/bin/env bash
# Contract test of `crawler inspect links`: one JSON object per link per line on stdout, each
# with "url" (string), "kind" (a|area|frame|iframe|canonical|alternate|refresh|img|script),
# "nofollow" (boolean) and "text" (string), in document order (script links last); --text prints
# the visible text; --meta one JSON object. Exit 0 on success; 2 with "invalid URL: ..." for a bad
# --base, 2 for an unreadable file or bad flags. Each output line is parsed with python3's json
# module.
# Usage: inspect_links_test.sh CRAWLER_BINARY TESTS_DATA_DIR
set -uo pipefail

crawler=${1:?usage: inspect_links_test.sh CRAWLER_BINARY TESTS_DATA_DIR}
data=${2:?usage: inspect_links_test.sh CRAWLER_BINARY TESTS_DATA_DIR}/html
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
checks=0

# run EXPECTED_EXIT ARGS...: runs `crawler inspect links ARGS`, output in $tmp/out and $tmp/err.
run() {
  local want_rc=$1
  shift
  checks=$((checks + 1))
  "$crawler" inspect links "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] ||
    fail "inspect links $*: exit $rc, want $want_rc (stderr: $(head -c 300 "$tmp/err"))"
}

# expect_links NAME EXPECTED: every stdout line must be a JSON object with the contract's fields
# and types; EXPECTED lists "kind url nofollow text" per link (text after the third space).
expect_links() {
  local name=$1 expected=$2
  printf '%s\n' "$expected" >"$tmp/expected"
  python3 - "$tmp/out" "$tmp/expected" <<'EOF' || fail "$name: see above"
import json, sys
out_path, expected_path = sys.argv[1], sys.argv[2]
kinds = {"a", "area", "frame", "iframe", "canonical", "alternate", "refresh", "img", "script"}
got = []
ok = True
with open(out_path, "rb") as f:
    raw = f.read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"  stdout is not UTF-8: {e}", file=sys.stderr)
    sys.exit(1)
for number, line in enumerate(text.split("\n")[:-1], 1):
    try:
        obj = json.loads(line)
    except ValueError as e:
        print(f"  line {number} is not JSON ({e}): {line!r}", file=sys.stderr)
        ok = False
        continue
    if not isinstance(obj, dict):
        print(f"  line {number} is not an object: {line!r}", file=sys.stderr)
        ok = False
        continue
    for field, kind in (("url", str), ("kind", str), ("nofollow", bool), ("text", str)):
        if not isinstance(obj.get(field), kind):
            print(f"  line {number}: field {field!r} missing or not {kind.__name__}: {line!r}",
                  file=sys.stderr)
            ok = False
    if obj.get("kind") not in kinds:
        print(f"  line {number}: unknown kind: {line!r}", file=sys.stderr)
        ok = False
    if not ok:
        continue
    got.append(f"{obj['kind']} {obj['url']} {str(obj['nofollow']).lower()} {obj['text']}".rstrip())
if text and not text.endswith("\n"):
    print("  stdout does not end with a newline", file=sys.stderr)
    ok = False
with open(expected_path, encoding="utf-8") as f:
    want = [l.rstrip() for l in f.read().split("\n") if l.strip()]
if got != want:
    print("  links differ:", file=sys.stderr)
    for l in want:
        if l not in got:
            print(f"    missing: {l}", file=sys.stderr)
    for l in got:
        if l not in want:
            print(f"    unexpected: {l}", file=sys.stderr)
    if sorted(got) == sorted(want):
        print("    (same links, different order)", file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
EOF
}

expect_stdout() {
  local name=$1 expected=$2
  if [ "$(cat "$tmp/out")" != "$expected" ]; then
    fail "$name: stdout differs"
    diff <(printf '%s\n' "$expected") "$tmp/out" >&2
  fi
}

expect_stderr() {
  local name=$1 expected=$2
  grep -qF -- "$expected" "$tmp/err" || fail "$name: stderr lacks '$expected': $(cat "$tmp/err")"
}

# ---- Links: kinds, resolution, nofollow, anchor text, what is skipped. ----
run 0 --base https://example.com/dir/links.html "$data/links.html"
expect_links "links.html" "\
canonical https://example.com/links false
alternate https://example.com/de/links false
refresh https://example.com/refreshed false
a https://example.com/plain false plain link
a https://example.com/dir/relative.html false relative one
a https://other.example/ext true External & nofollowed
a https://example.com/q?a=1&b=2 false Query
a https://example.com/in-noscript false Enable JS
area https://example.com/area false An area
iframe https://example.com/frame.html false
a https://example.com/image-link false Logo
img https://example.com/logo.png false Logo"
[ -s "$tmp/err" ] && fail "links.html: unexpected stderr: $(cat "$tmp/err")"

run 0 --base https://example.com/dir/page.html "$data/base.html"
expect_links "base.html" "\
a https://cdn.example.net/base/page false p
a https://cdn.example.net/root false r
a https://cdn.example.net/base/ false f
img https://cdn.example.net/img.png false"

run 0 --base https://example.com/ "$data/robots_none.html"
expect_links "robots_none.html" "\
a https://example.com/a true a
canonical https://example.com/c true"

run 0 --base http://frames.example/dir/ "$data/frames.html"
expect_links "frames.html" "\
frame http://frames.example/dir/left.html false
frame https://example.com/right false"

# Script links: after the other links, each target once, without text; rel=nofollow of an <a>
# applies to its handler's links.
cat >"$tmp/script.html" <<'HTML'
<button onclick="location.href='/next'; return false">Next</button>
<a href="/plain" rel="nofollow" onclick="window.open('/popup', '_blank')">Plain</a>
<a href="javascript:location='/js'">JS</a><span onclick="location='/next'">again</span>
<div onclick="location.href='/item?id=' + id">not a literal</div>
HTML
run 0 --base https://example.com/dir/ "$tmp/script.html"
expect_links "script links" "\
a https://example.com/plain true Plain
script https://example.com/next false
script https://example.com/popup true
script https://example.com/js false"

# ---- Encodings: the output is UTF-8 whatever the page's encoding. ----
run 0 --base https://example.com/ "$data/koi8r.html"
expect_links "koi8r.html" "a https://example.com/%D0%BF%D1%83%D1%82%D1%8C false ссылка"

run 0 --base https://example.com/ "$data/shift_jis.html"
expect_links "shift_jis.html" "a https://example.com/jp false リンク"

run 0 --base https://example.com/ --content-type 'text/html; charset=windows-1251' "$data/koi8r.html"
expect_links "koi8r.html read as windows-1251" \
  "a https://example.com/%D0%A0%D0%A5%D0%A4%D0%A8 false УУЩМЛБ"

# ---- Escaping: quotes, backslashes and control characters in anchor text. ----
printf '<a href="/q">say "hi" \\ back&#9;tab&#1;ctl</a>' >"$tmp/escape.html"
run 0 --base https://example.com/ "$tmp/escape.html"
expect_links "escaping" 'a https://example.com/q false say "hi" \ back tab'$'\x01''ctl'
grep -qF '\u0001' "$tmp/out" || fail "escaping: control character not written as \\u0001: $(cat "$tmp/out")"

# Standard input, and a page without links.
printf '<p>no links here</p>' | "$crawler" inspect links --base https://example.com/ - >"$tmp/out" 2>"$tmp/err"
checks=$((checks + 1))
[ ! -s "$tmp/out" ] || fail "stdin: unexpected output: $(cat "$tmp/out")"

# ---- --text: the visible text. ----
run 0 --base https://example.com/dir/links.html --text "$data/links.html"
expect_stdout "--text" "Links test
Plain plain link and a relative one.
External & nofollowed
Query Top JS Mail Data Tel
Enable JS
Café – naïve"

run 0 --base https://example.com/ --text "$data/windows1252_undeclared.html"
expect_stdout "--text windows-1252" "Café “quoted” € 5"

# ---- --meta: one JSON object. ----
run 0 --base https://example.com/ --meta "$data/koi8r.html"
python3 - "$tmp/out" <<'EOF' || fail "--meta: see above"
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
if len(lines) != 1:
    print(f"  want one line, got {len(lines)}", file=sys.stderr); sys.exit(1)
meta = json.loads(lines[0])
want = {"title": "Привет", "charset": "KOI8-R", "charset_source": "meta", "noindex": False,
        "nofollow": False, "base": "https://example.com/", "links": 1}
bad = {k: meta.get(k) for k, v in want.items() if meta.get(k) != v}
if bad:
    print(f"  unexpected values: {bad}", file=sys.stderr); sys.exit(1)
EOF

# ---- Errors. ----
run 2 --base 'not a url' "$data/links.html"
expect_stderr "bad --base" "invalid URL: "
[ ! -s "$tmp/out" ] || fail "bad --base: unexpected stdout"
run 2 --base https://example.com/ "$tmp/does-not-exist.html"
expect_stderr "missing file" "cannot read"
run 2 --base https://example.com/ "$data"
expect_stderr "directory" "cannot read"
run 2 "$data/links.html"
run 2 --base https://example.com/ --text --meta "$data/links.html"

if [ "$failures" -ne 0 ]; then
  echo "inspect_links_test: $failures failure(s) in $checks checks" >&2
  exit 1
fi
echo "inspect_links_test: $checks checks passed"
