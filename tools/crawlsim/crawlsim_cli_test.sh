#!/usr/bin/env bash
# Smoke test of the crawlsim command line, which scripts rely on (docs/recrawl.md):
#   crawlsim_cli_test.sh PATH_TO_CRAWLSIM
# Exits non-zero with a message on the first mismatch.
set -u
crawlsim="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "crawlsim_cli_test: $*" >&2; exit 1; }

policies="oracle optimal uniform proportional fixed nutch stormcrawler step bayes-published bayes-corrected"
args=(--pages 300 --rates gamma:1,0.5 --budget 150 --days 12 --seed 3)

"$crawlsim" "${args[@]}" --policy all --csv "$work/a.csv" --series-csv "$work/series.csv" \
    --allocation-csv "$work/alloc.csv" > "$work/table.txt" || fail "run with --policy all failed"
head -n 1 "$work/a.csv" | grep -q '^policy,freshness,age,' || fail "CSV header: $(head -n 1 "$work/a.csv")"
[ "$(wc -l < "$work/a.csv")" -eq 11 ] || fail "expected 10 policy rows in the CSV"
for p in $policies; do
  grep -q "^$p," "$work/a.csv" || fail "policy $p missing from the CSV"
  grep -q "^$p " "$work/table.txt" || fail "policy $p missing from the table"
done
awk -F, 'NR > 1 && ($2 < 0 || $2 > 1 || $3 < 0) { bad = 1 } END { exit bad }' "$work/a.csv" \
  || fail "freshness outside [0, 1] or negative age"
head -n 1 "$work/series.csv" | grep -q '^day,policy,freshness,age$' || fail "series CSV header"
head -n 1 "$work/alloc.csv" | grep -q '^page,rate_per_day,weight,optimum_visits_per_day,' \
  || fail "allocation CSV header"

# Deterministic: the same seed gives the same results (all columns but CPU time).
"$crawlsim" "${args[@]}" --policy all --csv "$work/b.csv" > /dev/null || fail "second run failed"
diff <(cut -d, -f1-9 "$work/a.csv") <(cut -d, -f1-9 "$work/b.csv") > /dev/null \
  || fail "two runs with the same seed differ"

# Repeated --policy keeps the order given; a rates file works.
printf '# rates per day\n1\n9\n' > "$work/rates.txt"
"$crawlsim" --pages 40 --rates "$work/rates.txt" --budget 20 --days 20 --policy uniform \
    --policy oracle --csv "$work/c.csv" > /dev/null || fail "run with a rates file failed"
[ "$(cut -d, -f1 "$work/c.csv" | tr '\n' ' ')" = "policy uniform oracle " ] \
  || fail "policy order: $(cut -d, -f1 "$work/c.csv" | tr '\n' ' ')"

# Importance weights and Last-Modified are accepted.
"$crawlsim" "${args[@]}" --policy optimal --weights lognormal:0,1 --last-modified 0.5 \
    --csv "$work/d.csv" > /dev/null || fail "run with --weights failed"
grep -q '^optimal,' "$work/d.csv" || fail "weighted run wrote no optimal row"

# Usage errors exit 2.
"$crawlsim" "${args[@]}" --policy nonsense > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown policy"
"$crawlsim" --pages 10 --budget 1 --days 1 --policy uniform > /dev/null 2>&1
[ $? -eq 2 ] || fail "missing --rates"
"$crawlsim" --pages 10 --rates gamma:-1,1 --budget 1 --days 1 --policy uniform > /dev/null 2>&1
[ $? -eq 2 ] || fail "bad --rates"
echo "crawlsim_cli_test: ok"
