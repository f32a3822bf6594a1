#!/usr/bin/env bash
# `make demo`: starts websim (a synthetic web on 127.0.0.1) and crawls it with the standalone
# crawler, so a newcomer sees a crawl without any network. Output goes to DEMO_DIR.
set -euo pipefail
build_dir=${1:-build}
demo_dir=${DEMO_DIR:-demo-crawl}
hosts=${DEMO_HOSTS:-20}
pages=${DEMO_PAGES:-30}
websim="$build_dir/tools/websim/websim"
crawler="$build_dir/tools/crawler/crawler"

rm -rf "$demo_dir"
mkdir -p "$demo_dir"
"$websim" --hosts "$hosts" --pages "$pages" --seed 1 --port 0 \
  --port-file "$demo_dir/websim.port" --seeds-file "$demo_dir/seeds.txt" \
  --truth "$demo_dir/truth.tsv" --log "$demo_dir/websim.log" --max-seconds 600 \
  2> "$demo_dir/websim.err" &
websim_pid=$!
trap 'kill "$websim_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  [ -s "$demo_dir/websim.port" ] && break
  sleep 0.1
done
[ -s "$demo_dir/websim.port" ] || { cat "$demo_dir/websim.err"; echo "demo: websim did not start"; exit 1; }
port=$(cat "$demo_dir/websim.port")
echo "demo: websim serves $hosts hosts x $pages pages on 127.0.0.1:$port"

"$crawler" crawl --seeds "$demo_dir/seeds.txt" --data-dir "$demo_dir/data" \
  --connect-to "127.0.0.1:$port" --allow-network 127.0.0.0/8 \
  --min-delay 20ms --stats-json "$demo_dir/stats.json" --progress-interval 2s

expected=$(grep -c "^page$(printf '\t')" "$demo_dir/truth.tsv")
echo
echo "demo: summary ($demo_dir/stats.json):"
cat "$demo_dir/stats.json"
echo "demo: websim's ground truth has $expected allowed reachable pages"
echo "demo: crawl log: $demo_dir/data/crawl.log; WARC files and their CDXJ indexes: $demo_dir/data/warc/"
"$crawler" warc wacz --collection demo -o "$demo_dir/demo.wacz" "$demo_dir/data/warc"
echo "demo: open $demo_dir/demo.wacz in https://replayweb.page (docs/archive.md)"
