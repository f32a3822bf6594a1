#!/usr/bin/env bash
# bench/standalone: throughput, CPU and memory of the standalone crawler (`crawler crawl`) on a
# websim web of >= 10,000 pages on >= 200 hosts, each mode next to a reference measured in the
# same run. Not a timed test: people run it and read the table (docs/benchmarks.md).
#
#   max     no delay, robots on. Reference: Debian's wget2 --recursive --robots=on
#           --max-threads=64 --delete-after over the same pages. Both crawl the static export of
#           the web served by nginx (one worker); crawler rows with WARC and fingerprints off
#           (target 1.0 x wget2) and both on (target 0.5 x wget2); and both on without fsync
#           (--no-fsync), whose pages/s next to the row with fsync is the cost of durability.
#           With --web docs the web is real documentation pages instead (Debian's python3.11-doc,
#           the same tree on every host), on hosts reached through real name resolution: each
#           host has its own loopback address, listed in /etc/hosts while the bench runs.
#   polite  1 connection per host, fixed per-host delay. Reference: the bound hosts / delay.
#           Crawls websim itself, whose request log (ns clock) gives the per-host gaps, on a web
#           of equal host sizes (websim --equal-host-sizes), where a perfect crawler reaches
#           the bound.
#
# Every page count, coverage figure and politeness check comes from the server's request log and
# websim's ground truth, so both tools are measured the same way.
#
# Usage: bench/standalone/run.sh [options]   (--help lists them)
# Output: the table on stdout; results.md, results.csv, runs.jsonl and logs in --out.
# Exit status: 0 all crawler rows pass, 1 some target missed, 2 usage or setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$repo/bench/standalone"

hosts=200
pages_per_host=60
seed=1
page_bytes=2048,8192
modes=max,polite
build_dir="$repo/build-bench"
build=1
out=""
repeat=1
run_timeout=300
websim_threads=1
# max mode, crawler: two connections per host (400 on the default web; wget2 opens ~850 over its
# run). More only cost: 8 per host opened ~1,150 connections, whose set-up, libcurl's liveness
# check of each idle one before a reuse and teardown at exit took ~10% more CPU and wall time
# (docs/benchmarks.md, "How the two tools see the same web").
max_conns_per_host=2
max_in_flight=512
workers=2
wget2_threads=64
# polite mode
polite_delay_ms=50
polite_in_flight=512
polite_warc=0
polite_equal_hosts=1
rss_limit_mb=300
do_perf=0
perf_row=(--no-warc --no-fingerprints)
perf_row_name="WARC+fp off"
keep=0
smoke=0
web_kind=websim
docs_source=/usr/share/doc/python3.11/html
hosts_given=0
pages_given=0

usage() {
  cat <<EOF
usage: bench/standalone/run.sh [options]
  --hosts N                 hosts in the web (default $hosts)
  --pages-per-host N        websim --pages (default $pages_per_host: 10,438 reachable allowed pages)
  --seed S                  websim seed (default $seed)
  --page-bytes MIN,MAX      websim page size (default $page_bytes)
  --modes LIST              max,polite (default $modes)
  --web KIND                websim, or docs: the pages of --docs-source on every host, each host
                            on its own loopback address through /etc/hosts (max mode only; needs
                            root; --hosts defaults to 20 there: 10,520 pages of 96 KB mean)
  --docs-source DIR         HTML tree of the docs web (default $docs_source)
  --repeat N                runs per row; the table shows the best (fastest) run (default $repeat)
  --build-dir DIR           CMake build dir, configured Release if new (default build-bench)
  --no-build                use the binaries in --build-dir as they are
  --out DIR                 results dir (default BUILD_DIR/bench-standalone/run-DATE)
  --run-timeout S           time limit of each crawl (default $run_timeout)
  --max-conns-per-host N    crawler, max mode (default $max_conns_per_host)
  --max-in-flight N         crawler, max mode (default $max_in_flight)
  --workers N               crawler page-processing threads (default $workers)
  --wget2-threads N         wget2 --max-threads (default $wget2_threads)
  --polite-delay-ms MS      per-host delay of the polite mode (default $polite_delay_ms)
  --polite-warc             polite mode with WARC on (default off)
  --polite-unequal-hosts    polite mode on the max mode's web, whose hosts differ in size (default:
                            websim --equal-host-sizes, so that the bound is reachable)
  --websim-threads N        websim server threads (default $websim_threads)
  --perf                    also profile one crawler max-mode run (WARC+fp off) with perf
  --perf-full               the same, with WARC and fingerprints on (the CPU-per-page row)
  --keep                    keep crawl data dirs and WARC files
  --smoke                   a run of seconds that checks the bench still works, not the figures:
                            a small web (8 hosts x 10 pages unless --hosts/--pages-per-host say
                            otherwise), no ratio targets (every row must still complete, fetch
                            exactly the ground truth, stay polite and produce its figures);
                            ctest runs it (bench.standalone_small)
EOF
}

die() { echo "bench: $*" >&2; exit 2; }
note() { echo "bench: $*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts=$2; hosts_given=1; shift 2 ;;
    --pages-per-host) pages_per_host=$2; pages_given=1; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --page-bytes) page_bytes=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --web) web_kind=$2; shift 2 ;;
    --docs-source) docs_source=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --run-timeout) run_timeout=$2; shift 2 ;;
    --max-conns-per-host) max_conns_per_host=$2; shift 2 ;;
    --max-in-flight) max_in_flight=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --wget2-threads) wget2_threads=$2; shift 2 ;;
    --polite-delay-ms) polite_delay_ms=$2; shift 2 ;;
    --polite-warc) polite_warc=1; shift ;;
    --polite-unequal-hosts) polite_equal_hosts=0; shift ;;
    --websim-threads) websim_threads=$2; shift 2 ;;
    --perf) do_perf=1; shift ;;
    --perf-full) do_perf=1; perf_row=(); perf_row_name="WARC+fp on"; shift ;;
    --keep) keep=1; shift ;;
    --smoke) smoke=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
case "$web_kind" in
  websim) ;;
  docs)
    [ "$modes" = max,polite ] && modes=max
    [ "$hosts_given" = 1 ] || hosts=20
    [ "$smoke" = 0 ] || die "--smoke runs on the websim web"
    [ -f "$docs_source/index.html" ] \
      || die "no $docs_source/index.html: apt-get install python3.11-doc, or give --docs-source"
    [ -w /etc/hosts ] || die "--web docs lists its hosts in /etc/hosts, which is not writable here"
    ;;
  *) die "unknown web '$web_kind' (websim or docs)" ;;
esac
if [ "$smoke" = 1 ]; then
  [ "$hosts_given" = 1 ] || hosts=8
  [ "$pages_given" = 1 ] || pages_per_host=10
  run_timeout=$((run_timeout < 60 ? run_timeout : 60))
fi
for n in hosts pages_per_host repeat run_timeout max_conns_per_host max_in_flight workers \
         wget2_threads polite_delay_ms websim_threads; do
  [[ ${!n} =~ ^[0-9]+$ && ${!n} -gt 0 ]] || die "--${n//_/-} must be a positive integer"
done
want_max=0; want_polite=0
IFS=, read -ra mode_list <<< "$modes"
for m in "${mode_list[@]}"; do
  case "$m" in max) want_max=1 ;; polite) want_polite=1 ;; *) die "unknown mode '$m'" ;; esac
done
[ "$web_kind" = docs ] && [ $want_polite = 1 ] && die "--web docs runs the max mode only"

# --- tools ---------------------------------------------------------------------------------------
for t in python3 /usr/bin/time timeout cmake; do
  command -v "$t" >/dev/null || die "$t is missing"
done
have_wget2=0; have_nginx=0
command -v wget2 >/dev/null && have_wget2=1
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] && have_nginx=1
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [ $want_max = 1 ] && { [ $have_wget2 = 0 ] || [ $have_nginx = 0 ]; }; then
  note "max mode needs Debian's wget2 and nginx: apt-get install wget2 nginx"
  note "(scripts/install-deps.sh should list them); missing: $([ $have_wget2 = 0 ] && echo wget2) $([ $have_nginx = 0 ] && echo nginx)"
fi

if [ $build = 1 ]; then
  build_log=$(mktemp)
  note "building crawler and websim in $build_dir (log: $build_log)"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$build_log" 2>&1 \
      || { tail -20 "$build_log" >&2; die "cmake configure failed"; }
  fi
  # -j2: the machine this was written for has 2 cores shared with other work.
  cmake --build "$build_dir" --target crawler websim -j2 >> "$build_log" 2>&1 \
    || { tail -20 "$build_log" >&2; die "build failed"; }
  rm -f "$build_log"
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
[ "$build_type" = Release ] || note "warning: $build_dir is a '${build_type:-unknown}' build, not Release"
crawler="$build_dir/tools/crawler/crawler"
websim="$build_dir/tools/websim/websim"
if [ ! -x "$crawler" ] || [ ! -x "$websim" ]; then die "no crawler/websim binaries in $build_dir"; fi

out=${out:-"$build_dir/bench-standalone/run-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$out"
work="$out/work"
# Only ever delete a work dir this script made (it holds the marker file).
if [ -e "$work" ]; then
  [ -f "$work/.bench-standalone" ] || die "$work exists and is not a bench work dir; choose another --out"
  rm -rf "$work"
fi
mkdir -p "$work"
touch "$work/.bench-standalone"
runs="$out/runs.jsonl"
: > "$runs"
report="$here/bench_report.py"

# --- process bookkeeping: every server we start is stopped on exit, by pid ------------------------
run_pid=""          # the timed command in progress (/usr/bin/time, then timeout, then the tool)
server_pid=""       # websim, or the `timeout` that wraps nginx
nginx_pidfile=""    # set while the server is nginx
# SIGTERM to a pid and all its descendants, leaves first (ps --ppid: by parent id, not by name).
kill_tree() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}
cleanup() {
  if [ -n "$run_pid" ]; then
    kill_tree "$run_pid"
    wait "$run_pid" 2>/dev/null || true
    run_pid=""
  fi
  if [ -n "$server_pid" ] && [ -n "${server_dir:-}" ]; then
    proc_tree_ticks "$server_pid" > "$server_dir/server_ticks"
  fi
  if [ -n "$nginx_pidfile" ]; then
    # QUIT: graceful stop, which flushes the buffered access log; the wrapper then exits too.
    if [ -s "$nginx_pidfile" ]; then kill -QUIT "$(cat "$nginx_pidfile")" 2>/dev/null || true; fi
  elif [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true  # websim flushes its log on SIGTERM
  fi
  if [ -n "$server_pid" ]; then
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
  server_dir=""
  nginx_pidfile=""
  stop_redis
}
trap 'cleanup; drop_hosts_blocks $$' EXIT

# The docs web's names go into /etc/hosts between marker lines carrying this script's pid, and
# leave on exit; a block whose script is gone (killed with SIGKILL) leaves at the next start.
# The file is rewritten in place, not replaced: containers bind-mount it.
hosts_marker="# bench/standalone/run.sh docs web, pid"
drop_hosts_blocks() {  # pid whose block goes too (0: only those of dead scripts)
  python3 - "$hosts_marker" "$1" <<'EOF'
import os, sys
marker, drop = sys.argv[1], int(sys.argv[2])
lines = open("/etc/hosts").read().splitlines()
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
kept, skip = [], False
for line in lines:
    if line.startswith(marker + " ") and not line.endswith(" end"):
        pid = int(line.split()[-1])
        skip = pid == drop or not alive(pid)
    elif line.startswith(marker + " ") and line.endswith(" end"):
        if skip:
            skip = False
            continue
    if not skip:
        kept.append(line)
if kept != lines:
    with open("/etc/hosts", "r+") as f:
        f.write("\n".join(kept) + "\n")
        f.truncate()
EOF
}
add_hosts_block() {  # file of /etc/hosts lines
  drop_hosts_blocks 0
  { echo "$hosts_marker $$"; cat "$1"; echo "$hosts_marker $$ end"; } >> /etc/hosts
}

# The polite mode's Redis row: a redis-server on loopback holding the politeness timers.
redis_pid=""
redis_port=""
start_redis() {  # dir
  local dir=$1
  for _ in 1 2 3 4 5; do
    redis_port=$(free_port)
    redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no \
      --logfile "$dir/redis.log" &
    redis_pid=$!
    if wait_for_port "$redis_port" 5 && kill -0 "$redis_pid" 2>/dev/null; then return 0; fi
    stop_redis
  done
  die "redis-server did not start"
}
stop_redis() {
  if [ -n "${redis_pid:-}" ]; then
    kill -TERM "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
    redis_pid=""
  fi
}
trap 'exit 130' INT TERM

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# Busy CPU time of the whole machine in clock ticks (user nice system irq softirq steal), to tell
# how much of the 2 cores other work took during a run: the machine is shared.
machine_busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }
# Of which steal: time the hypervisor ran other guests while this VM had work to do.
machine_steal_ticks() { awk '/^cpu / {print $9; exit}' /proc/stat; }

# CPU ticks (utime + stime) of the given pids and their children, 0 for gone ones.
proc_tree_ticks() {
  local total=0 pid child
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    # Fields after the ")" of the command name: utime is the 12th, stime the 13th.
    total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
      total=$((total + $(proc_tree_ticks "$child")))
    done
  done
  echo "$total"
}

wait_for_port() {  # port, seconds[, address]; true once something accepts on address:port
  local deadline=$((SECONDS + $2)) address=${3:-127.0.0.1}
  while [ $SECONDS -le "$deadline" ]; do
    (exec 3<>"/dev/tcp/$address/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# A free loopback port, by the rule every test uses (tests/crawlertest/ports.py).
free_port() {
  PYTHONPATH="$repo/tests" python3 -c 'from crawlertest.ports import free_port; print(free_port())'
}

# Server lifetime bound: every crawl of this script plus slack, so a server outlives no run even
# if this script is killed with SIGKILL.
server_seconds=$((run_timeout + 60))

start_websim() {  # dir; extra websim args follow
  local dir=$1; shift
  mkdir -p "$dir"
  rm -f "$dir/port"
  "$websim" --hosts "$hosts" --pages "$pages_per_host" --seed "$seed" --page-bytes "$page_bytes" \
    --threads "$websim_threads" --port 0 --port-file "$dir/port" --log "$dir/server.log" \
    --max-seconds "$server_seconds" "$@" 2> "$dir/websim.err" &
  server_pid=$!
  server_dir=$dir
  for _ in $(seq 1 200); do
    [ -s "$dir/port" ] && break
    sleep 0.05
  done
  [ -s "$dir/port" ] || { cat "$dir/websim.err" >&2; die "websim did not start"; }
  server_port=$(cat "$dir/port")
}

start_nginx() {  # dir
  local dir=$1
  mkdir -p "$dir/tmp"
  # Started by root, nginx runs its worker as `nobody`, which cannot read an export under a
  # private folder (/root, a 0700 home or temporary folder): every request would get 403 and the
  # max mode would fetch nothing. Run the worker as the caller instead.
  local user_line=""
  [ "$(id -u)" = 0 ] && user_line="user root $(id -gn);"
  # Files and connections of the worker, within this shell's hard limit on open files.
  local nginx_files
  nginx_files=$(ulimit -Hn)
  { [ "$nginx_files" = unlimited ] || [ "$nginx_files" -gt 65536 ]; } && nginx_files=65536
  local nginx_connections=$((nginx_files - 1024 < 16384 ? nginx_files - 1024 : 16384))
  for _ in 1 2 3 4 5; do
    local listen address=127.0.0.1
    if [ "$web_kind" = docs ]; then
      # One address per host, the port fixed when the web was written (it is in the seeds).
      server_port=$docs_port
      listen=$(cat "$web/listen")
      address=$docs_address
    else
      server_port=$(free_port)
      listen="listen 127.0.0.1:$server_port;"
    fi
    cat > "$dir/nginx.conf" <<EOF
# Generated by bench/standalone/run.sh: the static export of websim under its own URLs.
daemon off;
$user_line
worker_processes 1;
# The worker serves at most worker_connections connections at once: room for all the crawler
# may hold on a web of many hosts (its connection cache keeps up to 8,192 idle ones, plus those
# in use), within the open-file limit set here.
worker_rlimit_nofile $nginx_files;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections $nginx_connections; }
http {
  types { text/html html; text/plain txt; application/xml xml; }
  default_type text/html;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  open_file_cache max=20000 inactive=120s;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  # The same columns as websim's request log (time in seconds, ms resolution).
  log_format bench '\$msec\t\$host\t\$request_uri\t\$status\t\$body_bytes_sent\t\$connection\t\$request_method';
  access_log $dir/server.log bench buffer=256k flush=1s;
  server {
    $listen
    root $export_dir/\$host;
    location / { try_files "\$uri\$is_args\$args" \$uri \$uri/index.html =404; }
  }
}
EOF
    rm -f "$dir/nginx.pid" "$dir/server.log"
    timeout -k 5 "$server_seconds" "$nginx_bin" -c "$dir/nginx.conf" -e "$dir/error.log" \
      2> "$dir/nginx.err" &
    server_pid=$!
    server_dir=$dir
    nginx_pidfile="$dir/nginx.pid"
    if wait_for_port "$server_port" 5 "$address" && kill -0 "$server_pid" 2>/dev/null; then
      return 0
    fi
    cleanup  # most likely the port was taken between free_port and nginx's bind: retry
  done
  cat "$dir/nginx.err" "$dir/error.log" >&2 2>/dev/null || true
  die "nginx did not start"
}

stop_server() { cleanup; }

# Runs a command under /usr/bin/time and timeout; leaves wall/user/sys/maxrss in $dir/time.txt.
timed() {  # dir, command...
  local dir=$1; shift
  local rc=0
  loadavg > "$dir/load_before"
  machine_busy_ticks > "$dir/busy_before"
  machine_steal_ticks > "$dir/steal_before"
  # In the background and waited for, so that a signal to this script is handled at once.
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" \
    timeout -k 10 "$run_timeout" "$@" > "$dir/stdout.txt" 2> "$dir/stderr.txt" &
  run_pid=$!
  wait "$run_pid" || rc=$?
  run_pid=""
  echo "$rc" > "$dir/exit_code"
  machine_busy_ticks > "$dir/busy_after"
  machine_steal_ticks > "$dir/steal_after"
  loadavg > "$dir/load_after"
}

# Appends one JSON line to runs.jsonl.
record_run() {  # dir mode tool role repeat target_ratio settings ok_codes analysis_json
  local dir=$1 mode=$2 tool=$3 role=$4 rep=$5 target=$6 settings=$7 ok_codes=$8 analysis=$9
  python3 - "$dir" "$mode" "$tool" "$role" "$rep" "$target" "$settings" "$ok_codes" \
      "$analysis" "$web_kind" >> "$runs" <<'EOF'
import json, os, sys
d, mode, tool, role, rep, target, settings, ok_codes, analysis, web = sys.argv[1:11]
t = open(os.path.join(d, "time.txt")).read().split()[-4:]
code = int(open(os.path.join(d, "exit_code")).read())
tick = os.sysconf("SC_CLK_TCK")
def ticks(name):
    p = os.path.join(d, name)
    return int(open(p).read()) if os.path.exists(p) else 0
wall, user, sys_ = float(t[0]), float(t[1]), float(t[2])
machine_s = (ticks("busy_after") - ticks("busy_before")) / tick
steal_s = (ticks("steal_after") - ticks("steal_before")) / tick
server_s = ticks("server_ticks") / tick
stats = None
p = os.path.join(d, "stats.json")
if os.path.exists(p):
    try:
        stats = json.load(open(p))
    except ValueError:
        stats = None
run = {
    "mode": mode, "tool": tool, "role": role, "repeat": int(rep), "web": web,
    "target_ratio": float(target) if target else None,
    "settings": settings, "exit_code": code,
    "exit_ok": str(code) in ok_codes.split(","),
    "wall_s": wall, "user_s": user, "sys_s": sys_, "maxrss_kb": int(t[3]),
    "server_cpu_s": server_s,
    # Cores busy with anything but this tool and its server during the run (other engineers'
    # builds on a shared machine), and cores the hypervisor took from this VM (steal): the
    # context that makes a noisy number readable.
    "others_cores": max(0.0, (machine_s - steal_s - user - sys_ - server_s) / wall)
    if wall > 0 else None,
    "steal_cores": steal_s / wall if wall > 0 else None,
    "loadavg_before": open(os.path.join(d, "load_before")).read().strip(),
    "loadavg_after": open(os.path.join(d, "load_after")).read().strip(),
    "analysis": json.load(open(analysis)), "crawler_stats": stats,
}
print(json.dumps(run))
EOF
}

# --- the web ------------------------------------------------------------------------------------
web="$work/web"
export_dir="$web/export"
mkdir -p "$web"
if [ "$web_kind" = docs ]; then
  [ $have_nginx = 1 ] || die "--web docs needs nginx"
  docs_port=$(free_port)
  docs_address=127.0.1.1  # h0.docs.test (docs_web.py gives each host its address)
  docs_summary=$(python3 "$here/docs_web.py" --source "$docs_source" --hosts "$hosts" \
    --port "$docs_port" --out "$web") || die "docs_web.py could not write the web"
  add_hosts_block "$web/hosts"
  truth_pages=$(grep -cE $'^page\t' "$web/truth.tsv" || true)
  web_description="docs web: $hosts hosts x $docs_summary of $docs_source, port $docs_port,"
  web_description+=" names in /etc/hosts"
  note "$web_description: $truth_pages pages (ground truth)"
else
  export_args=()
  [ $want_max = 1 ] && [ $have_nginx = 1 ] && export_args=(--export "$export_dir")
  "$websim" --hosts "$hosts" --pages "$pages_per_host" --seed "$seed" --page-bytes "$page_bytes" \
    --truth "$web/truth.tsv" --seeds-file "$web/seeds.txt" "${export_args[@]}" --no-serve \
    || die "websim could not write the web"
  truth_pages=$(grep -cE $'^page\t' "$web/truth.tsv" || true)
  web_description="websim --hosts $hosts --pages $pages_per_host --seed $seed"
  web_description+=" --page-bytes $page_bytes"
  note "web: $hosts hosts x $pages_per_host pages, seed $seed, page bytes $page_bytes:" \
       "$truth_pages reachable allowed pages (ground truth)"
fi
if [ "$truth_pages" -lt 10000 ] || [ "$hosts" -lt 200 ]; then
  note "warning: below the benchmark's minimum size (>= 10,000 pages on >= 200 hosts)"
fi
# The polite mode's web: by default every host has the same number of pages, so that the bound
# hosts / delay is what a perfect crawler reaches (with hosts of different sizes the largest one
# sets the end of the crawl, below the bound).
polite_web_args=()
polite_truth="$web/truth.tsv"
polite_truth_pages=$truth_pages
polite_web_note=""
if [ $want_polite = 1 ] && [ $polite_equal_hosts = 1 ]; then
  polite_web_args=(--equal-host-sizes)
  polite_truth="$web/truth-polite.tsv"
  "$websim" --hosts "$hosts" --pages "$pages_per_host" --seed "$seed" --page-bytes "$page_bytes" \
    "${polite_web_args[@]}" --truth "$polite_truth" --no-serve \
    || die "websim could not write the polite web"
  polite_truth_pages=$(grep -cE $'^page\t' "$polite_truth" || true)
  polite_web_note=" (polite mode: --equal-host-sizes, $polite_truth_pages pages)"
  note "polite web: the same with --equal-host-sizes: $polite_truth_pages pages," \
       "$((polite_truth_pages / hosts)) per host"
  if [ "$polite_truth_pages" -lt 10000 ]; then
    note "warning: polite web below the benchmark's minimum size (>= 10,000 pages)"
  fi
fi

crawler_common=(crawl --seeds "$web/seeds.txt" --allow-network 127.0.0.0/8 --quiet
                --workers "$workers")
# How the crawler's requests reach the server started last: websim's hosts all through
# --connect-to; the docs web's through name resolution, limited to its domain (its pages link to
# the real web).
crawler_route() {
  if [ "$web_kind" = docs ]; then
    route=(--allow-host-suffix docs.test)
  else
    route=(--connect-to "127.0.0.1:$server_port")
  fi
}
notes=()
load_start=$(loadavg)

run_crawler() {  # dir mode tool target rep  extra crawler args...
  local dir=$1 mode=$2 tool=$3 target=$4 rep=$5; shift 5
  mkdir -p "$dir"
  local route
  crawler_route
  local args=("${crawler_common[@]}" --data-dir "$dir/data" --stats-json "$dir/stats.json"
              "${route[@]}" "$@")
  timed "$dir" "$crawler" "${args[@]}"
  echo "${args[*]}" > "$dir/settings"
}

finish_run() {  # dir mode tool role rep target time_unit delay_ms ok_codes [truth]
  local dir=$1 mode=$2 tool=$3 role=$4 rep=$5 target=$6 unit=$7 delay=$8 ok=$9
  local truth=${10:-$web/truth.tsv}
  stop_server
  local extra=()
  [ -n "$delay" ] && extra=(--delay-ms "$delay")
  python3 "$report" analyze --log "$dir/server.log" --truth "$truth" --time-unit "$unit" \
    "${extra[@]}" > "$dir/analysis.json"
  record_run "$dir" "$mode" "$tool" "$role" "$rep" "$target" "$(cat "$dir/settings")" "$ok" \
    "$dir/analysis.json"
  [ $keep = 1 ] || rm -rf "$dir/data" "$dir/download"
  python3 - "$runs" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
a = r["analysis"]
rate = a["html_pages"] / r["wall_s"] if r["wall_s"] else 0
extra = f", {a['violations']} violations, min gap {a['min_gap_ms']} ms" if "violations" in a else ""
print(f"bench:   {r['mode']:6} {r['tool']:28} exit {r['exit_code']}: {a['html_pages']} pages in "
      f"{r['wall_s']:.2f} s = {rate:,.0f}/s, coverage {100 * a['coverage']:.1f}%, "
      f"{a['extra_pages']} extra, {r['user_s'] + r['sys_s']:.2f} CPU s, "
      f"{r['maxrss_kb'] / 1024:.0f} MB{extra}; server {r['server_cpu_s']:.2f} CPU s; "
      f"others used {r['others_cores']:.2f} cores, steal {r['steal_cores']:.2f}; "
      f"load {r['loadavg_before']}", file=sys.stderr)
EOF
}

# --- max mode -----------------------------------------------------------------------------------
if [ $want_max = 1 ]; then
  max_unit=s
  if [ $have_nginx = 1 ]; then
    server_kind="nginx (static export, 1 worker)"
  else
    server_kind="websim (nginx missing)"
    max_unit=ns
    notes+=("max mode served by websim because nginx is missing; wget2 1.99 then opens one connection per request (websim sends no explicit Connection: keep-alive), which understates wget2")
  fi
  start_max_server() {  # dir
    if [ $have_nginx = 1 ]; then start_nginx "$1"; else start_websim "$1"; fi
  }
  max_settings=(--min-delay 0 --delay-factor 0 --max-connections-per-host "$max_conns_per_host"
                --max-in-flight "$max_in_flight")
  for rep in $(seq 1 "$repeat"); do
    if [ $have_wget2 = 1 ]; then
      dir="$work/max-wget2-$rep"
      mkdir -p "$dir/home"
      start_max_server "$dir"
      wget_args=(--recursive --level=inf --robots=on --max-threads="$wget2_threads" --delete-after
                 --input-file="$web/seeds.txt" --directory-prefix="$dir/download" --quiet)
      if [ "$web_kind" = websim ]; then
        # absolute-form requests through the "proxy" reach the same server: no name resolution.
        wget_args+=(--span-hosts --domains=websim.test --http-proxy="127.0.0.1:$server_port")
      fi
      # The docs web: names resolved through /etc/hosts, as the crawler's; no --span-hosts (its
      # hosts link to none of each other), which would look up every host of the real web its
      # pages link to (docs_web.py).
      echo "wget2 ${wget_args[*]}" > "$dir/settings"
      timed "$dir" env HOME="$dir/home" wget2 "${wget_args[@]}"
      # wget2 exits 8 when some response was an error (its 404s): still a complete run.
      finish_run "$dir" max wget2 reference "$rep" "" "$max_unit" "" 0,8
    fi
    dir="$work/max-crawler-nowarc-$rep"
    start_max_server "$dir"
    run_crawler "$dir" max "crawler (WARC+fp off)" 1.0 "$rep" "${max_settings[@]}" --no-warc \
      --no-fingerprints
    finish_run "$dir" max "crawler (WARC+fp off)" crawler "$rep" 1.0 "$max_unit" "" 0

    dir="$work/max-crawler-warc-$rep"
    start_max_server "$dir"
    run_crawler "$dir" max "crawler (WARC+fp on)" 0.5 "$rep" "${max_settings[@]}"
    finish_run "$dir" max "crawler (WARC+fp on)" crawler "$rep" 0.5 "$max_unit" "" 0

    # The cost of durability: the same crawl without its fsyncs (WARC file per completion batch,
    # then the frontier's log), next to the row above.
    dir="$work/max-crawler-warc-nofsync-$rep"
    start_max_server "$dir"
    run_crawler "$dir" max "crawler (WARC+fp on, no fsync)" "" "$rep" "${max_settings[@]}" \
      --no-fsync
    finish_run "$dir" max "crawler (WARC+fp on, no fsync)" crawler "$rep" "" "$max_unit" "" 0
  done
  fsync_note=$(python3 - "$runs" <<'EOF'
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["mode"] != "max" or not r["wall_s"]:
        continue
    rate = r["analysis"]["html_pages"] / r["wall_s"]
    best[r["tool"]] = max(best.get(r["tool"], 0), rate)
on, off = best.get("crawler (WARC+fp on)"), best.get("crawler (WARC+fp on, no fsync)")
if on and off:
    print(f"fsync cost (WARC file per completion batch, then the frontier's log): pages/s with "
          f"fsync / without = {on:,.0f} / {off:,.0f} = {on / off:.3f} (target >= 0.90)")
EOF
)
  if [ -n "$fsync_note" ]; then notes+=("$fsync_note"); note "$fsync_note"; fi
  notes+=("WARC+fp off: --no-warc --no-fingerprints (no WARC writer, no content key, SimHash or dedup: the link-mapping crawl wget2 does); WARC+fp on: WARC files with SHA-1 digests, content keys, SimHash and dedup")
fi

# --- polite mode --------------------------------------------------------------------------------
polite_bound=$(python3 -c "print($hosts / ($polite_delay_ms / 1000.0))")
if [ $want_polite = 1 ]; then
  polite_tool="crawler (WARC off)"
  polite_args=(--min-delay "${polite_delay_ms}ms" --max-delay "${polite_delay_ms}ms"
               --delay-factor 0 --max-connections-per-host 1 --max-in-flight "$polite_in_flight")
  if [ $polite_warc = 1 ]; then polite_tool="crawler (WARC+fp on)"; else polite_args+=(--no-warc); fi
  for rep in $(seq 1 "$repeat"); do
    dir="$work/polite-crawler-$rep"
    start_websim "$dir" "${polite_web_args[@]}"
    run_crawler "$dir" polite "$polite_tool" 0.9 "$rep" "${polite_args[@]}"
    finish_run "$dir" polite "$polite_tool" crawler "$rep" 0.9 ns "$polite_delay_ms" 0 \
      "$polite_truth"
    if command -v redis-server >/dev/null; then
      # The same crawl with its politeness timers in Redis (--politeness redis://), right after
      # the in-process one: their pages/s ratio is the cost of the shared store.
      dir="$work/polite-redis-$rep"
      start_websim "$dir" "${polite_web_args[@]}"
      start_redis "$dir"
      run_crawler "$dir" polite "$polite_tool, Redis" 0.9 "$rep" "${polite_args[@]}" \
        --politeness "redis://127.0.0.1:$redis_port"
      stop_redis
      finish_run "$dir" polite "$polite_tool, Redis" crawler "$rep" 0.9 ns "$polite_delay_ms" 0 \
        "$polite_truth"
      notes+=("$(python3 "$report" redis-row --runs "$runs" --stats "$dir/stats.json")")
      note "${notes[-1]}"
    else
      note "redis-server is missing: no polite row on Redis (scripts/install-deps.sh installs it)"
    fi
  done
  notes+=("polite bound = hosts / delay = $hosts / ${polite_delay_ms} ms; violations = per-host gaps between request arrivals at websim (CLOCK_MONOTONIC) shorter than the delay, robots.txt included")
fi

# --- profile ------------------------------------------------------------------------------------
if [ $do_perf = 1 ] && [ $want_max = 1 ]; then
  if command -v perf >/dev/null; then
    dir="$work/perf"
    mkdir -p "$dir"
    start_max_server "$dir"
    note "profiling one crawler max-mode run ($perf_row_name) with perf"
    crawler_route
    # DWARF call graphs: Release builds and Debian's libraries have no frame pointers.
    timeout -k 10 "$run_timeout" perf record -F 250 --call-graph dwarf,16384 -o "$dir/perf.data" \
      -- "$crawler" "${crawler_common[@]}" --data-dir "$dir/data" \
      "${route[@]}" "${max_settings[@]}" "${perf_row[@]}" \
      > "$dir/perf-record.txt" 2>&1 &
    run_pid=$!
    wait "$run_pid" || true
    run_pid=""
    stop_server
    perf_report() {  # output file, perf report options...
      local file=$1; shift
      perf report -i "$dir/perf.data" --stdio "$@" 2> /dev/null | grep -v '^#' | grep -v '^$' \
        | sed 's/ *$//' | cut -c1-180 > "$out/$file" || true
    }
    perf_report perf-self.txt --no-children --sort dso,sym -g none --percent-limit 0.3
    perf_report perf-children.txt --children --sort sym -g none --percent-limit 1
    perf_report perf-threads.txt --no-children --sort pid,dso -g none --percent-limit 0.3
    [ $keep = 1 ] || rm -rf "$dir/data"
    note "perf: $out/perf-self.txt (self time), perf-children.txt (inclusive), perf-threads.txt (by thread); data $dir/perf.data"
  else
    note "perf is not installed: no profile"
  fi
fi

# --- report -------------------------------------------------------------------------------------
printf '%s\n' "${notes[@]}" > "$out/notes.txt"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$repo" diff --quiet HEAD 2>/dev/null || git_rev="$git_rev + uncommitted changes"
B_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) \
B_GIT=$git_rev \
B_MACHINE="$(nproc) cores, $(uname -r), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)" \
B_BUILD="$build_dir ($build_type)" \
B_WEB="$web_description: $truth_pages pages in the ground truth$polite_web_note" \
B_SERVER_MAX=${server_kind:-} \
B_SERVER_POLITE="websim, $websim_threads thread(s)" \
B_LOAD_START=$load_start B_LOAD_END=$(loadavg) \
B_WGET2="$(wget2 --version 2>/dev/null | head -1 || true)" \
B_NGINX="$("$nginx_bin" -v 2>&1 | head -1 || true)" \
B_HOSTS=$hosts B_DELAY=$polite_delay_ms B_BOUND=$polite_bound B_RSS=$rss_limit_mb \
python3 - "$out/meta.json" "$out/notes.txt" <<'EOF'
import json, os, sys
e = os.environ
json.dump({
    "date": e["B_DATE"], "git": e["B_GIT"], "machine": e["B_MACHINE"], "build": e["B_BUILD"],
    "web": e["B_WEB"], "server_max": e["B_SERVER_MAX"], "server_polite": e["B_SERVER_POLITE"],
    "loadavg_start": e["B_LOAD_START"], "loadavg_end": e["B_LOAD_END"],
    "wget2": e["B_WGET2"] or "missing", "nginx": e["B_NGINX"] or "missing",
    "hosts": int(e["B_HOSTS"]), "polite_delay_ms": float(e["B_DELAY"]),
    "polite_bound_pps": float(e["B_BOUND"]), "rss_limit_mb": float(e["B_RSS"]),
    "notes": [n for n in open(sys.argv[2]).read().splitlines() if n],
}, open(sys.argv[1], "w"), indent=1)
EOF

echo
echo "bench/standalone: $truth_pages pages on $hosts hosts$polite_web_note; load average $load_start (start)," \
     "$(loadavg) (end); $(nproc) cores"
rc=0
smoke_args=()
[ "$smoke" = 1 ] && smoke_args=(--no-targets)
python3 "$report" report --runs "$runs" --meta "$out/meta.json" --csv "$out/results.csv" \
  --markdown "$out/results.md" "${smoke_args[@]}" || rc=$?
echo
echo "results: $out/results.md, $out/results.csv (all runs: $runs)"
ln -sfn "$out" "$(dirname "$out")/latest" 2>/dev/null || true
exit "$rc"
