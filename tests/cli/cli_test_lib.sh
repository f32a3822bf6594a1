# Sourced by the contract tests in this directory: a scratch directory ($tmp, removed on exit)
# and fail(), which reports a failure and counts it in $failures.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
