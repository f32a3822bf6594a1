#!/usr/bin/env bash
# Checks Grafana dashboard JSON files against Grafana's own TypeScript types (npm @grafana/schema,
# `satisfies Dashboard` under `tsc --strict`: wrong types and unknown keys fail). Grafana itself
# is not needed. The node tools come from scripts/k8s/install-tools.sh.
# usage: check-dashboard-schema.sh DASHBOARD.json...
set -euo pipefail
. "$(dirname "$0")/env.sh"
[ -d "$NODE_TOOLS/node_modules/@grafana/schema" ] ||
  { echo "check-dashboard-schema: run scripts/k8s/install-tools.sh first" >&2; exit 2; }
work=$(mktemp -d "$NODE_TOOLS/check.XXXXXX"); trap 'rm -rf "$work"' EXIT
i=0
for f in "$@"; do
  i=$((i + 1))
  { echo 'import type { Dashboard } from "@grafana/schema";'
    printf 'export const d = ('; cat "$f"; echo ') satisfies Dashboard;'; } > "$work/check-$i.ts"
done
(cd "$work" && "$NODE_TOOLS/node_modules/.bin/tsc" --noEmit --strict --module nodenext \
   --moduleResolution nodenext --target es2022 check-*.ts)
echo "check-dashboard-schema: $i dashboard(s) match Grafana's Dashboard type"
