#!/usr/bin/env bash
# Runs a command in a new network namespace that has only its own loopback (brought up here) and
# no route out. A cluster started inside (cluster-up.sh) keeps its pod, Service and bridge
# addresses and its iptables rules there; they vanish with the namespace.
# usage: in-netns.sh COMMAND [ARG...]      (needs root)
set -euo pipefail
exec unshare --net --fork -- bash -c 'ip link set lo up && exec "$@"' in-netns "$@"
