#!/usr/bin/env bash
# Builds the crawler's container image with podman, without any registry:
#
#   1. a Debian 12 base image from the Debian archive apt already uses (mmdebstrap
#      --variant=minbase, then `podman import`), made once per machine and cached;
#   2. localhost/crawler:VERSION (and :latest) on that base: the stripped binaries of BUILD_DIR
#      (crawlerd, crawlctl, crawler, websim) and the Debian packages of their shared libraries
#      (dpkg -S of their ldd closure), running as the unprivileged user 65532;
#   3. localhost/crawler-redis:latest: Debian's redis-server on the same base (the chart's
#      bundled politeness store);
#   4. localhost/crawler:VERSION-browser (and :latest-browser): image 2 plus Debian's
#      chromium-headless-shell, the browser of collections that render (the chart's
#      fetcher.browser.enabled), from the security archive when apt has one.
#
# usage: docker/build-images.sh [BUILD_DIR]      (default: build)
# env:   CRAWLER_IMAGE (localhost/crawler), CRAWLER_IMAGE_CACHE (/var/cache/crawler-k8s),
#        CRAWLER_IMAGE_BROWSER=0: skip image 4,
#        IMAGE_ARCHIVE_DIR=DIR: also write each image as a docker-archive tar there
#        (crawler.tar, crawler-redis.tar, crawler-browser.tar; for `ctr images import`)
# Prints each image's name and size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/cache-lib.sh"
# Any other step that fails says which one and with what status (its own messages come first).
trap 'rc=$?; echo "build-images: FAILED at line $LINENO: $BASH_COMMAND (exit $rc)" >&2' ERR
build_dir=$(cd "${1:-build}" && pwd)
image=${CRAWLER_IMAGE:-localhost/crawler}
cache=${CRAWLER_IMAGE_CACHE:-/var/cache/crawler-k8s}
base=localhost/crawler-base:bookworm
binaries=(tools/crawlerd/crawlerd tools/crawlctl/crawlctl tools/crawler/crawler tools/websim/websim)
browser=${CRAWLER_IMAGE_BROWSER:-1}
case "$browser" in
  0|1) ;;
  *) echo "build-images: CRAWLER_IMAGE_BROWSER must be 0 or 1, got '$browser'" >&2; exit 1 ;;
esac

for b in "${binaries[@]}"; do
  [ -x "$build_dir/$b" ] || { echo "build-images: $build_dir/$b is missing (build first)" >&2; exit 1; }
done
version=$("$build_dir/tools/crawlerd/crawlerd" --version | awk '{print $NF}')

# The base image is made from a tarball cached in $cache; both are checked before they are
# trusted: the tarball must be a complete tar of a Debian root (an interrupted or older run may
# have left a directory or a truncated file under its name), and the imported image carries the
# tarball's checksum as a label, so a base imported from another tarball is imported again.
base_tar="$cache/bookworm-minbase.tar"
need_members=(etc/debian_version usr/bin/apt-get usr/bin/dpkg)
if ! why=$(tar_complete "$base_tar" "${need_members[@]}"); then
  [ -e "$base_tar" ] && cache_note build-images "rebuilding the Debian base tarball: $why"
  rm -rf "$base_tar"
  mkdir -p "$cache" || cache_fail build-images "cannot create the cache directory $cache"
  mirror=$(debian_mirror) ||
    cache_fail build-images "no Debian archive found in apt's sources (/etc/apt/sources.list, /etc/apt/sources.list.d/*.sources or *.list)"
  cache_note build-images "making the Debian 12 base tarball from $mirror (once per machine, ~90 s)"
  part="$cache/bookworm-minbase.partial.tar"
  rm -rf "$part"
  # --format=tar and a .tar name: mmdebstrap picks its output format from the name otherwise, and
  # writes a directory for a name it does not know.
  if ! mmdebstrap --quiet --variant=minbase --format=tar bookworm "$part" "$mirror"; then
    rm -rf "$part"
    cache_fail build-images "mmdebstrap could not make the Debian base from $mirror (its messages are above)"
  fi
  why=$(tar_complete "$part" "${need_members[@]}") ||
    { rm -rf "$part"; cache_fail build-images "mmdebstrap made no usable base: $why"; }
  mv "$part" "$base_tar"
fi
base_sum=$(sha256sum "$base_tar" | cut -c1-64)
if [ "$(podman image inspect --format '{{index .Labels "crawler.base-tarball"}}' "$base" 2>/dev/null)" != "$base_sum" ]; then
  podman image exists "$base" && cache_note build-images "re-importing $base: it was not made from $base_tar"
  podman import -q --change 'CMD ["/bin/bash"]' --change "LABEL crawler.base-tarball=$base_sum" \
    "$base_tar" "$base" >/dev/null || cache_fail build-images "podman import of $base_tar failed"
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/bin"
libs=()
for b in "${binaries[@]}"; do
  strip --strip-unneeded -o "$ctx/bin/$(basename "$b")" "$build_dir/$b"
  while read -r lib; do libs+=("$lib"); done < <(ldd "$build_dir/$b" | awk '/=> \// {print $3}')
done
# The package owning each library; usrmerge: dpkg may know it by its /lib path or /usr/lib path.
packages=$(for lib in $(printf '%s\n' "${libs[@]}" | sort -u); do
             real=$(readlink -f "$lib")
             dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null ||
               dpkg -S "${real#/usr}" 2>/dev/null || echo "build-images: no package owns $lib" >&2
           done | cut -d: -f1 | sort -u | tr '\n' ' ')
cp "$here/Containerfile" "$ctx/"
podman build -q --pull=never --build-arg "BASE=$base" --build-arg "RUNTIME_PACKAGES=$packages" \
  --label "org.opencontainers.image.version=$version" \
  -t "$image:$version" -t "$image:latest" "$ctx" >/dev/null
podman build -q --pull=never --build-arg "BASE=$base" -f "$here/redis.Containerfile" \
  -t "$image-redis:latest" "$ctx" >/dev/null
if [ "$browser" = 1 ]; then
  replaced=$(podman image inspect --format '{{.Id}}' "$image:latest-browser" 2>/dev/null || true)
  security=$(debian_security_mirror) ||
    cache_note build-images "no Debian security archive in apt's sources: the browser image gets the Chromium of bookworm's last point release"
  podman build -q --pull=never --build-arg "CRAWLER=$image:$version" \
    --build-arg "SECURITY_ARCHIVE=${security:-}" -f "$here/browser.Containerfile" \
    -t "$image:$version-browser" -t "$image:latest-browser" "$ctx" >/dev/null
  # Every new build of the crawler's image rebuilds this one on it: the one it replaces (~560 MB
  # of its own) goes, unless another tag or a container still holds it.
  if [ -n "$replaced" ] && [ "$replaced" != "$(podman image inspect --format '{{.Id}}' "$image:latest-browser")" ]; then
    podman rmi "$replaced" >/dev/null 2>&1 || true
  fi
fi
if [ -n "${IMAGE_ARCHIVE_DIR:-}" ]; then
  mkdir -p "$IMAGE_ARCHIVE_DIR"
  rm -f "$IMAGE_ARCHIVE_DIR"/crawler{,-redis,-browser}.tar
  podman save -q -m --format docker-archive -o "$IMAGE_ARCHIVE_DIR/crawler.tar" "$image:$version" "$image:latest"
  podman save -q --format docker-archive -o "$IMAGE_ARCHIVE_DIR/crawler-redis.tar" "$image-redis:latest"
  if [ "$browser" = 1 ]; then
    podman save -q -m --format docker-archive -o "$IMAGE_ARCHIVE_DIR/crawler-browser.tar" \
      "$image:$version-browser" "$image:latest-browser"
  fi
fi
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image:$version"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image-redis:latest"
if [ "$browser" = 1 ]; then
  podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image:$version-browser"
fi
