#!/usr/bin/env bash
# Builds the Kubernetes 1.20.2 server binaries (apiserver, controller-manager, scheduler, kubelet,
# kube-proxy) from Debian bookworm's `kubernetes` source package, the full upstream tree with
# vendor/ (Debian itself ships only kubectl from it), with upstream's `make` (it runs the code
# generators first; a plain `go build` fails) and Debian's golang-go. About 10 minutes on 2 cores
# and 4 GB of temporary disk, once per machine: the binaries are cached in K8S_BIN.
set -euo pipefail
. "$(dirname "$0")/env.sh"
# the Debian archive this machine's apt already uses
debian_mirror() { sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true; }
OUT=${1:-$K8S_BIN}
BINS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy"
if [ -x "$OUT/kubelet" ]; then echo "cached: $OUT"; exit 0; fi
W=$(mktemp -d "${TMPDIR:-/var/tmp}/k8s-build.XXXX"); trap 'rm -rf "$W"' EXIT; cd "$W"
echo "build-k8s: building Kubernetes $K8S_VERSION into $OUT (once per machine, ~10 min)"
# private apt config with a deb-src line (does not touch the system's sources)
mkdir -p lists/partial cache/archives/partial
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) bookworm main" > src.list
printf 'Dir::Etc::sourcelist "%s/src.list";\nDir::Etc::sourceparts "-";\nDir::State::Lists "%s/lists";\nDir::Cache "%s/cache";\n' "$W" "$W" "$W" > apt.conf
APT_CONFIG=$W/apt.conf apt-get -o APT::Sandbox::User=root update -qq
APT_CONFIG=$W/apt.conf apt-get -o APT::Sandbox::User=root source -qq --download-only kubernetes=1.20.5+really1.20.2-1.1+deb12u1 2>/dev/null
echo 'b83c0780efb182d928dc63d46488a847f161f04e40a94b96bf5247dd671ecdfc  kubernetes_1.20.5+really1.20.2.orig.tar.gz' | sha256sum -c -
tar xzf kubernetes_1.20.5+really1.20.2.orig.tar.gz
cd kubernetes-1.20.2
# upstream make: runs the code generators (openapi-gen etc.) then builds in GOPATH mode with vendor/
nice make WHAT="$(printf 'cmd/%s ' $BINS)" >/dev/null
mkdir -p "$OUT.part"; for b in $BINS; do install -m755 _output/bin/$b "$OUT.part/"; done
rm -rf "$OUT"; mv "$OUT.part" "$OUT"
"$OUT/kube-apiserver" --version
