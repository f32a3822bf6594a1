#!/usr/bin/env bash
# Builds the Kubernetes 1.20.2 server binaries (apiserver, controller-manager, scheduler, kubelet,
# kube-proxy) from Debian bookworm's `kubernetes` source package, the full upstream tree with
# vendor/ (Debian itself ships only kubectl from it), with upstream's `make` (it runs the code
# generators first; a plain `go build` fails) and Debian's golang-go. About 10 minutes on 2 cores
# and 4 GB of temporary disk, once per machine: the binaries are cached in K8S_BIN.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/../cache-lib.sh"
trap 'rc=$?; echo "build-k8s: FAILED at line $LINENO: $BASH_COMMAND (exit $rc)" >&2' ERR
OUT=${1:-$K8S_BIN}
BINS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy"
# The cache is trusted only if every binary is there and says it is this version (the build
# writes OUT.part and renames it whole, so a cut build leaves no OUT; anything else is rebuilt).
cached_ok() {
  local b v
  for b in $BINS; do
    [ -x "$OUT/$b" ] || { echo "$OUT/$b is missing"; return 1; }
    v=$("$OUT/$b" --version 2>/dev/null) || { echo "$OUT/$b does not run"; return 1; }
    case "$v" in *"v$K8S_VERSION"*) ;; *) echo "$OUT/$b is not v$K8S_VERSION ($v)"; return 1 ;; esac
  done
}
if why=$(cached_ok); then echo "cached: $OUT"; exit 0; fi
[ -e "$OUT" ] && cache_note build-k8s "rebuilding: $why"
mirror=$(debian_mirror) ||
  cache_fail build-k8s "no Debian archive found in apt's sources (/etc/apt/sources.list, /etc/apt/sources.list.d/*.sources or *.list)"
W=$(mktemp -d "${TMPDIR:-/var/tmp}/k8s-build.XXXX"); trap 'rm -rf "$W"' EXIT; cd "$W"
echo "build-k8s: building Kubernetes $K8S_VERSION into $OUT (once per machine, ~10 min)"
# private apt config with a deb-src line (does not touch the system's sources)
mkdir -p lists/partial cache/archives/partial
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" > src.list
printf 'Dir::Etc::sourcelist "%s/src.list";\nDir::Etc::sourceparts "-";\nDir::State::Lists "%s/lists";\nDir::Cache "%s/cache";\n' "$W" "$W" "$W" > apt.conf
APT_CONFIG=$W/apt.conf apt-get -o APT::Sandbox::User=root update -qq
APT_CONFIG=$W/apt.conf apt-get -o APT::Sandbox::User=root source -qq --download-only kubernetes=1.20.5+really1.20.2-1.1+deb12u1 >/dev/null ||
  cache_fail build-k8s "apt-get source kubernetes=1.20.5+really1.20.2-1.1+deb12u1 from $mirror failed (its messages are above)"
echo 'b83c0780efb182d928dc63d46488a847f161f04e40a94b96bf5247dd671ecdfc  kubernetes_1.20.5+really1.20.2.orig.tar.gz' | sha256sum -c -
tar xzf kubernetes_1.20.5+really1.20.2.orig.tar.gz
cd kubernetes-1.20.2
# upstream make: runs the code generators (openapi-gen etc.) then builds in GOPATH mode with vendor/
nice make WHAT="$(printf 'cmd/%s ' $BINS)" >/dev/null
mkdir -p "$OUT.part"; for b in $BINS; do install -m755 _output/bin/$b "$OUT.part/"; done
rm -rf "$OUT"; mv "$OUT.part" "$OUT"
"$OUT/kube-apiserver" --version
