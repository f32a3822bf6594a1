#!/usr/bin/env bash
# Runs the README's test command the way a new Debian 12 machine would see it: on a clean clone of
# this repository's HEAD, with every cache the project keeps moved aside first and put back after:
#   - /var/cache/crawler-k8s (the Debian base tarball, the Kubernetes build, helm/kubectl, the
#     node tools, the pause image),
#   - the project's podman images (localhost/crawler*, localhost/pause:local: re-tagged aside,
#     so nothing is rebuilt from them),
#   - npm's download cache (~/.npm),
# and no build directory (the clone has none, and it is built without ccache).
# A machine that passes this passes CI; one whose own caches hide a fault does not.
#
# --apt-sources also runs it under either form of apt's sources, the machine's own put back after:
#   keep     as the machine has them (default)
#   deb822   only /etc/apt/sources.list.d/*.sources (Debian 12's default; no sources.list)
#   list     only /etc/apt/sources.list (the one-line form; the .sources files moved aside)
#
# usage: scripts/fresh-machine-test.sh [--apt-sources keep|deb822|list] [--target test|crawl]
#                                      [--keep-clone] [--log FILE]
# Needs root (podman, /var/cache, /etc/apt). Prints the test summary and the time; exits with
# make's status. Takes what `make test` takes on a new machine: ~1-2 h on 2 cores (the build,
# Kubernetes built from source, every test).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/cache-lib.sh"
apt_mode=keep
target=test
keep_clone=0
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --apt-sources) apt_mode=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --keep-clone) keep_clone=1; shift ;;
    --log) log=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "fresh-machine-test: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
case "$apt_mode" in keep|deb822|list) ;; *) echo "fresh-machine-test: --apt-sources keep|deb822|list" >&2; exit 2 ;; esac
case "$target" in test|crawl) ;; *) echo "fresh-machine-test: --target test|crawl" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "fresh-machine-test: needs root (podman, /var/cache, /etc/apt)" >&2; exit 2; }

stamp=$(date +%Y%m%d-%H%M%S)-$$
aside=/var/tmp/crawler-fresh-machine-$stamp
mkdir -p "$aside"
work=$(mktemp -d /var/tmp/crawler-fresh-clone.XXXX)
log=${log:-$aside/make-$target.log}
note() { echo "fresh-machine-test: $*" >&2; }

k8s_cache=${CRAWLER_K8S_CACHE:-/var/cache/crawler-k8s}
moved_cache=0
images=()
moved_npm=0
apt_moved=()   # "original|aside" pairs
apt_written=()

restore() {
  local rc=$?
  set +e
  note "putting the caches back"
  if [ "$moved_cache" = 1 ]; then
    rm -rf "$k8s_cache"
    mv "$aside/crawler-k8s" "$k8s_cache"
  fi
  local img
  for img in "${images[@]}"; do
    podman rmi -f "$img" >/dev/null 2>&1
    podman tag "aside-$stamp/${img#localhost/}" "$img" && podman untag "aside-$stamp/${img#localhost/}"
  done
  if [ "$moved_npm" = 1 ]; then
    rm -rf "$HOME/.npm"
    mv "$aside/npm" "$HOME/.npm"
  fi
  local f pair
  for f in "${apt_written[@]}"; do rm -f "$f"; done
  for pair in "${apt_moved[@]}"; do mv "${pair#*|}" "${pair%%|*}"; done
  [ "$apt_mode" = list ] && apt-get update -qq
  [ "$keep_clone" = 1 ] && note "clone kept in $work/crawler" || rm -rf "$work"
  rmdir "$aside" 2>/dev/null || note "kept in $aside: $(ls "$aside" | tr '\n' ' ')"
  exit "$rc"
}
trap restore EXIT
trap 'exit 130' INT TERM

# --- move the caches aside -------------------------------------------------------------------
if [ -e "$k8s_cache" ]; then
  mv "$k8s_cache" "$aside/crawler-k8s"
  moved_cache=1
  note "moved $k8s_cache aside"
fi
while read -r img; do
  [ -n "$img" ] || continue
  podman tag "$img" "aside-$stamp/${img#localhost/}" && podman untag "$img" && images+=("$img")
done < <(podman images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null |
         grep -E '^localhost/(crawler|crawler-base|crawler-redis|pause)(:|$)' | sort -u)
[ ${#images[@]} -gt 0 ] && note "moved the podman images aside: ${images[*]}"
if [ -d "$HOME/.npm" ]; then
  mv "$HOME/.npm" "$aside/npm"
  moved_npm=1
  note "moved ~/.npm aside"
fi

# --- apt's sources in the form asked for -----------------------------------------------------
move_aside() {  # FILE
  local dest="$aside/apt-$(basename "$1")"
  mv "$1" "$dest"
  apt_moved+=("$1|$dest")
}
case "$apt_mode" in
  deb822)
    ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1 ||
      cache_fail fresh-machine-test "--apt-sources deb822: this machine has no .sources file to keep"
    [ -e /etc/apt/sources.list ] && move_aside /etc/apt/sources.list
    note "apt sources: deb822 only ($(ls /etc/apt/sources.list.d/*.sources | tr '\n' ' '))"
    ;;
  list)
    mirror=$(debian_mirror) || cache_fail fresh-machine-test "no Debian archive in apt's sources"
    lines=$(printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror")
    security=$(awk 'tolower($1) == "uris:" && $2 ~ /security/ {print $2; exit}' \
                 /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$security" ] && lines+=$'\n'"deb $security bookworm-security main"
    [ -e /etc/apt/sources.list ] && move_aside /etc/apt/sources.list
    for f in /etc/apt/sources.list.d/*.sources; do [ -e "$f" ] && move_aside "$f"; done
    printf '%s\n' "$lines" > /etc/apt/sources.list
    apt_written+=(/etc/apt/sources.list)
    note "apt sources: /etc/apt/sources.list only: $(echo "$lines" | tr '\n' ';')"
    apt-get update -qq || cache_fail fresh-machine-test "apt-get update with sources.list only failed"
    ;;
esac

# --- a clean clone, the README's command ------------------------------------------------------
git clone -q --no-local "$repo" "$work/crawler"
git -C "$work/crawler" checkout -q "$(git -C "$repo" rev-parse HEAD)"
note "clean clone of $(git -C "$repo" rev-parse --short HEAD) in $work/crawler; make $target (log: $log)"
start=$(date +%s)
rc=0
if [ "$target" = test ]; then
  (cd "$work/crawler" && env -u CCACHE_DIR make test) > "$log" 2>&1 || rc=$?
else
  # The main job: a standalone crawl. With no network beyond the Debian archive and npm, the
  # crawl is of websim on loopback (make demo), the same binary and command line.
  (cd "$work/crawler" && make demo) > "$log" 2>&1 || rc=$?
fi
elapsed=$(( $(date +%s) - start ))
echo "fresh-machine-test: make $target exited $rc after $((elapsed / 60)) min $((elapsed % 60)) s (apt sources: $apt_mode)"
grep -E "tests passed|tests failed|^\s+[0-9]+ - " "$log" | tail -40 || true
exit "$rc"
