#!/usr/bin/env bash
# Smoke test of the banditsim command line, which scripts rely on (docs/focused.md):
#   banditsim_cli_test.sh PATH_TO_BANDITSIM
# Exits non-zero with a message on the first mismatch.
set -u
banditsim="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "banditsim_cli_test: $*" >&2; exit 1; }

policies="oracle r1 r2 r3 thompson d-thompson rested-thompson d-ucb"
args=(--sites 4 --budget 150 --seeds 5 --seed 7)

"$banditsim" "${args[@]}" --set all --policy all --csv "$work/a.csv" > "$work/table.txt" \
  || fail "run with --set all --policy all failed"
head -n 1 "$work/a.csv" \
  | grep -q '^set,policy,seeds,mean_links,sd_links,p10_links,p90_links,ratio_to_oracle$' \
  || fail "CSV header: $(head -n 1 "$work/a.csv")"
[ "$(wc -l < "$work/a.csv")" -eq 33 ] || fail "expected 4 set types x 8 rows in the CSV"
for s in table1 institute university mixed; do
  for p in $policies; do
    grep -q "^$s,$p,5," "$work/a.csv" || fail "row $s,$p missing from the CSV"
    grep -Eq "^$s +$p " "$work/table.txt" || fail "row $s $p missing from the table"
  done
done
for p in $policies; do
  grep -Eq "^average +$p " "$work/table.txt" || fail "average row of $p missing"
done
awk -F, 'NR > 1 && ($8 < 0 || $8 > 1 || $4 < 0) { bad = 1 } END { exit bad }' "$work/a.csv" \
  || fail "ratio to the oracle outside [0, 1] or negative links"
awk -F, 'NR > 1 && $2 == "oracle" && $8 != 1 { bad = 1 } END { exit bad }' "$work/a.csv" \
  || fail "the oracle's ratio is not 1"

# Deterministic: the same seed gives the same table and CSV, whatever the thread count.
"$banditsim" "${args[@]}" --set all --policy all --threads 3 --csv "$work/b.csv" > "$work/b.txt" \
  || fail "second run failed"
cmp -s "$work/a.csv" "$work/b.csv" || fail "two runs with the same seed differ (CSV)"
cmp -s "$work/table.txt" "$work/b.txt" || fail "two runs with the same seed differ (table)"
# ... and another seed gives other sets.
"$banditsim" --sites 4 --budget 150 --seeds 5 --seed 8 --set all --policy all \
  --csv "$work/c.csv" > /dev/null || fail "third run failed"
cmp -s "$work/a.csv" "$work/c.csv" && fail "seeds 7 and 8 gave the same results"

# Repeated --policy keeps the order given (the oracle comes first).
"$banditsim" "${args[@]}" --set mixed --policy r3 --policy r1 --csv "$work/d.csv" > /dev/null \
  || fail "run with two policies failed"
[ "$(cut -d, -f2 "$work/d.csv" | tr '\n' ' ')" = "policy oracle r3 r1 " ] \
  || fail "policy order: $(cut -d, -f2 "$work/d.csv" | tr '\n' ' ')"

# Usage errors exit 2.
"$banditsim" "${args[@]}" --policy nonsense > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown policy"
"$banditsim" "${args[@]}" --set nonsense > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown set"
"$banditsim" --sites 0 > /dev/null 2>&1; [ $? -eq 2 ] || fail "zero sites"
"$banditsim" "${args[@]}" --dts-discount 1.5 > /dev/null 2>&1; [ $? -eq 2 ] || fail "bad discount"
echo "banditsim_cli_test: ok"
