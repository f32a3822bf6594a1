#!/usr/bin/env python3
"""The include graph of services/ by folder, and the layering rules it must keep.

Every `#include "services/..."` in a .h or .cc file under services/ is an edge from the
including file's folder to the included file's folder. The script prints the edges (with how
many includes make each), then the folders in layers: layer 0 includes no other folder, and a
folder's layer is one above the highest layer it includes. It checks (docs/architecture.md §12):

  1. the graph has no cycle: no folder includes one above it, directly or through others;
  2. a core folder (any folder of services/ but the gRPC layers `grpc/` and the process wiring
     in services/common/grpc, services/common/service and services/standalone) includes no
     generated protobuf (`crawler/v1/...`), protobuf, gRPC, hiredis or RocksDB header unless the
     folder is an adapter (services/common/rocksdb, redis). (A core's Prometheus metrics are a
     target of their own beside it, <svc>_metrics, which the core does not link.)
  3. the top stays on top: no folder includes services/standalone (the cores wired in one
     process), and no core folder includes a gRPC layer.

Usage: scripts/include-graph.py [--root DIR] [--check] [--dot]
  --check  print only violations; exit 1 if there are any (what ctest runs)
  --dot    print the graph in Graphviz dot form instead of the listing
Exit status: 0 when the rules hold, 1 when one is broken, 2 on a usage error.
"""

import argparse
import collections
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
# Headers a core must not include, by the library they belong to.
FOREIGN = re.compile(r'^(crawler/v1/|grpcpp/|grpc/|google/protobuf/|hiredis/|rocksdb/)')
# Folders that are the gRPC layer, the process wiring, or an adapter over a foreign library.
NOT_CORES = re.compile(r'(^|/)grpc$|^services/common/(service|rocksdb|redis|metrics)$|'
                       r'^services/standalone$')


def scan(root):
    """{folder: {included folder: count}} and {folder: [(file, foreign header)]}."""
    edges = collections.defaultdict(collections.Counter)
    foreign = collections.defaultdict(list)
    folders = set()
    for dirpath, _, files in os.walk(os.path.join(root, "services")):
        folder = os.path.relpath(dirpath, root)
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            folders.add(folder)
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target.startswith("services/"):
                        to = os.path.dirname(target)
                        if to != folder:
                            edges[folder][to] += 1
                    elif FOREIGN.match(target):
                        foreign[folder].append((os.path.join(folder, name), target))
    return folders, edges, foreign


def find_cycle(folders, edges):
    """A list of folders forming a cycle, or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for to in sorted(edges.get(node, {})):
            if state.get(to) == "open":
                return stack[stack.index(to):] + [to]
            if to not in state:
                found = visit(to)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(folders):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def layers(folders, edges):
    level = {}

    def depth(node):
        if node not in level:
            level[node] = 0  # cycles are reported separately; this only bounds the recursion
            level[node] = 1 + max((depth(to) for to in edges.get(node, {})), default=-1)
        return level[node]

    for node in folders:
        depth(node)
    return level


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--dot", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "services")):
        print(f"include-graph: no services/ in {root}", file=sys.stderr)
        return 2
    folders, edges, foreign = scan(root)
    problems = []
    cycle = find_cycle(folders, edges)
    if cycle:
        problems.append("cycle: " + " -> ".join(cycle))
    for folder in sorted(edges):
        for to in sorted(edges[folder]):
            if to == "services/standalone":
                problems.append(f"{folder} includes the process wiring {to}")
            elif re.search(r"(^|/)grpc$", to) and not NOT_CORES.search(folder):
                problems.append(f"core {folder} includes the gRPC layer {to}")
    for folder in sorted(foreign):
        if NOT_CORES.search(folder):
            continue
        for path, header in foreign[folder]:
            problems.append(f"core includes a foreign header: {path}: {header}")

    if args.dot:
        print("digraph services {\n  rankdir=BT;\n  node [shape=box];")
        for folder in sorted(edges):
            for to, count in sorted(edges[folder].items()):
                print(f'  "{folder}" -> "{to}" [label="{count}"];')
        print("}")
    elif not args.check:
        print("# include edges between folders of services/ (from -> to: #includes)")
        for folder in sorted(edges):
            for to, count in sorted(edges[folder].items()):
                print(f"{folder} -> {to}: {count}")
        level = layers(folders, edges)
        print("\n# layers (a folder includes only folders of lower layers)")
        for n in range(max(level.values(), default=-1) + 1):
            print(f"{n}: " + " ".join(sorted(f for f in folders if level[f] == n)))
    for problem in problems:
        print(f"VIOLATION: {problem}")
    if not args.dot:
        print("layering holds" if not problems else f"{len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
