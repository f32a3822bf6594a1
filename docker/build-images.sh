#!/usr/bin/env bash
# Builds the crawler's container image with podman, without any registry:
#
#   1. a Debian 12 base image from the Debian archive apt already uses (mmdebstrap
#      --variant=minbase, then `podman import`), made once per machine and cached;
#   2. localhost/crawler:VERSION (and :latest) on that base: the stripped binaries of BUILD_DIR
#      (crawlerd, crawlctl, crawler, websim) and the Debian packages of their shared libraries
#      (dpkg -S of their ldd closure), running as the unprivileged user 65532;
#   3. localhost/crawler-redis:latest: Debian's redis-server on the same base (the chart's
#      bundled politeness store).
#
# usage: docker/build-images.sh [BUILD_DIR]      (default: build)
# env:   CRAWLER_IMAGE (localhost/crawler), CRAWLER_IMAGE_CACHE (/var/cache/crawler-k8s),
#        IMAGE_ARCHIVE_DIR=DIR: also write each image as a docker-archive tar there
#        (crawler.tar, crawler-redis.tar; for `ctr images import`)
# Prints each image's name and size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
image=${CRAWLER_IMAGE:-localhost/crawler}
cache=${CRAWLER_IMAGE_CACHE:-/var/cache/crawler-k8s}
base=localhost/crawler-base:bookworm
binaries=(tools/crawlerd/crawlerd tools/crawlctl/crawlctl tools/crawler/crawler tools/websim/websim)

for b in "${binaries[@]}"; do
  [ -x "$build_dir/$b" ] || { echo "build-images: $build_dir/$b is missing (build first)" >&2; exit 1; }
done
version=$("$build_dir/tools/crawlerd/crawlerd" --version | awk '{print $NF}')

# The Debian archive this machine's apt uses (deb822 sources or the classic sources.list).
debian_mirror() {
  { sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null
    awk '$1 == "deb" && $0 !~ /security/ {print $2}' /etc/apt/sources.list 2>/dev/null
  } | grep -v security | head -1
}

if ! podman image exists "$base"; then
  mkdir -p "$cache"
  if [ ! -s "$cache/bookworm-minbase.tar" ]; then
    mirror=$(debian_mirror)
    [ -n "$mirror" ] || { echo "build-images: no Debian mirror found in apt's sources" >&2; exit 1; }
    echo "build-images: making the Debian 12 base from $mirror (once per machine, ~90 s)"
    mmdebstrap --quiet --variant=minbase bookworm "$cache/bookworm-minbase.tar.part" "$mirror"
    mv "$cache/bookworm-minbase.tar.part" "$cache/bookworm-minbase.tar"
  fi
  podman import -q --change 'CMD ["/bin/bash"]' "$cache/bookworm-minbase.tar" "$base" >/dev/null
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
if [ -n "${IMAGE_ARCHIVE_DIR:-}" ]; then
  mkdir -p "$IMAGE_ARCHIVE_DIR"
  rm -f "$IMAGE_ARCHIVE_DIR/crawler.tar" "$IMAGE_ARCHIVE_DIR/crawler-redis.tar"
  podman save -q -m --format docker-archive -o "$IMAGE_ARCHIVE_DIR/crawler.tar" "$image:$version" "$image:latest"
  podman save -q --format docker-archive -o "$IMAGE_ARCHIVE_DIR/crawler-redis.tar" "$image-redis:latest"
fi
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image:$version"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image-redis:latest"
