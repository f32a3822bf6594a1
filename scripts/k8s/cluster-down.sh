#!/usr/bin/env bash
# Stops what cluster-up.sh started in STATE (by PID file), kills the pods' containers, unmounts
# what the kubelet mounted, removes the pods' network namespaces and then STATE itself
# (KEEP_STATE=1 keeps it, e.g. to read logs). Safe to run twice, and from outside the network
# namespace the cluster ran in (processes and mounts are found by PID and path).
# usage: cluster-down.sh STATE_DIR
. "$(dirname "$0")/env.sh"
STATE=$1
[ -d "$STATE" ] || exit 0
STATE=$(cd "$STATE" && pwd)
SOCK=$STATE/containerd/containerd.sock
stop() { [ -f "$STATE/$1.pid" ] && kill "$(cat "$STATE/$1.pid")" 2>/dev/null; rm -f "$STATE/$1.pid"; }
for p in prometheus kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do stop $p; done
sleep 2
if [ -S "$SOCK" ]; then
  for t in $(ctr -a "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$SOCK" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
  done
  sleep 1
  for t in $(ctr -a "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$SOCK" -n k8s.io tasks delete -f "$t" >/dev/null 2>&1
  done
fi
stop containerd
sleep 1
# containerd's shims outlive it: their command line names STATE's containerd address.
pkill -9 -f "containerd-shim.*-address $SOCK" 2>/dev/null
grep -o " $STATE[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
for ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do
  # Only the pod namespaces of this cluster: their processes are gone, nothing else uses them.
  ip netns pids "$ns" 2>/dev/null | grep -q . || ip netns del "$ns" 2>/dev/null
done
[ "${KEEP_STATE:-0}" = 1 ] || rm -rf "$STATE"
echo "cluster-down: stopped"
