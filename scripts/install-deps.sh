#!/usr/bin/env bash
# Installs every Debian 12 package the build, tests and tools need. Idempotent and
# non-interactive: packages already present are skipped, and apt-get runs only when something is
# missing. This is the project's only install step; nothing is downloaded at build time.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # clang + libFuzzer runtime, for `make fuzz` (-DCRAWLER_FUZZ=ON)
  clang-14 libclang-rt-14-dev
  # libraries (lib/ and tools/)
  libabsl-dev            # Status/StatusOr, strings, containers, time
  libidn2-dev            # lib/url: IDNA (UTS #46) host to ASCII
  libpsl-dev publicsuffix  # lib/url: registrable domain, Debian's public suffix data
  libgumbo-dev           # lib/html: HTML5 parser
  libexpat1-dev          # lib/sitemap: streaming XML
  zlib1g-dev             # lib/sitemap, lib/http, lib/warc: gzip
  libdeflate-dev         # lib/warc: gzip members of WARC records above level 1
  libisal-dev            # lib/warc: gzip members of WARC records at level 1 (ISA-L igzip)
  libbrotli-dev          # lib/http: Content-Encoding: br
  libxxhash-dev          # lib/partition, lib/fingerprint
  librocksdb-dev         # services: frontier, dedup and scheduler state
  libhiredis-dev         # services/common/redis: politeness state shared by fetchers
  redis-server           # the politeness store; tests start their own on loopback
  libcurl4-openssl-dev   # services/fetcher: HTTP (multi interface)
  openssl                # tests/e2e/tls_test.py: makes its certificates
  libssl-dev             # lib/fingerprint: SHA-1 of WARC digests (libcrypto)
  libre2-dev             # lib/scope: linear-time include/exclude patterns
  libcli11-dev           # tools/: command lines
  libyaml-cpp-dev        # services/standalone: crawl configuration files
  libmimalloc-dev        # tools/crawler: the allocator of the crawl processes
  libprotobuf-dev        # proto/: protobuf runtime and the well-known types (Timestamp, Duration)
  protobuf-compiler      # proto/: protoc, run at build time (nothing generated is committed)
  libgrpc++-dev          # proto/, services/*/grpc: gRPC C++ runtime (pkg-config grpc++)
  protobuf-compiler-grpc  # proto/: grpc_cpp_plugin, the stub generator protoc runs
  prometheus-cpp-dev     # services/common/metrics: metric types and the /metrics endpoint (core + pull)
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3
  prometheus             # tests/e2e/metrics_test.py: promtool checks every /metrics scrape
  # Python clients of the services: grpcio is the runtime. Generate their stubs with Debian's
  # protoc and grpc_python_plugin (docs/api.md): grpc-tools 1.14 bundles a protoc that predates
  # proto3 `optional` and rejects proto/crawler/v1.
  python3-grpcio python3-grpc-tools
  gnuplot-nox            # docs: plots of the re-visit simulator (scripts/recrawl-report.sh)
  # containers and Kubernetes (docker/, helm/, deploy/, tests/k8s): images built with podman
  # from a Debian base made by mmdebstrap; the test cluster's runtime, network and store; its
  # Kubernetes is built from Debian's source package with Go (scripts/k8s/install-tools.sh)
  podman runc conmon catatonit netavark aardvark-dns uidmap fuse-overlayfs mmdebstrap
  containerd containernetworking-plugins etcd-server iptables iproute2 golang-go rsync unzip
  prometheus             # promtool (metrics, rules, dashboards' PromQL) and the test's scraper
  wget2 nginx            # bench/standalone: the reference crawler and its static server
  python3.11-doc         # bench/standalone --web docs: the pages of the article web
  chromium-headless-shell  # tests/e2e/archive_test.py: replays a WACZ in ReplayWeb.page
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# The WARC check of the e2e tests reads our files with the `warcio` package from the npm
# registry, so it needs node and npm. A machine that already has them (e.g. from NodeSource)
# keeps its own; otherwise Debian's.
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

# podman on VMs without CAP_SYS_RESOURCE and with hybrid cgroups: no ulimits raised per
# container, runc rather than crun. Written only when the machine has no podman configuration.
podman_conf() {
  if [ ! -e /etc/containers/containers.conf ]; then
    $sudo mkdir -p /etc/containers
    printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' |
      $sudo tee /etc/containers/containers.conf >/dev/null
    echo "install-deps: wrote /etc/containers/containers.conf (runc, no default ulimits)"
  fi
}

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  podman_conf
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
podman_conf
