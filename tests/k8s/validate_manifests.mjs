// Validates every object of a multi-document Kubernetes YAML file against the API's schemas
// (npm kubernetes-models; @kubernetes-models/prometheus-operator for monitoring.coreos.com):
// wrong types and missing required fields fail (`kubectl apply --dry-run=server` on a real
// cluster also catches unknown fields); prints the objects as a JSON array on stdout. Errors on stderr, exit 1 when one object is invalid.
// usage: NODE_TOOLS=DIR node validate_manifests.mjs FILE.yaml   (DIR: scripts/k8s/install-tools.sh)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(`${process.env.NODE_TOOLS}/`);
const { parseAllDocuments } = require("yaml");
let failed = 0;
const out = [];
for (const doc of parseAllDocuments(readFileSync(process.argv[2], "utf8"))) {
  if (doc.errors.length) { console.error(`YAML: ${doc.errors[0].message}`); failed++; continue; }
  const obj = doc.toJS();
  if (!obj) continue;
  out.push(obj);
  const id = `${obj.kind}/${obj.metadata?.name}`;
  const [group, version] = obj.apiVersion.includes("/") ? obj.apiVersion.split("/") : [null, obj.apiVersion];
  let Model;
  try {
    // The Prometheus Operator's kinds come from their own package.
    const models = group === "monitoring.coreos.com" ? "@kubernetes-models/prometheus-operator" : "kubernetes-models";
    Model = require(group ? `${models}/${group}/${version}/${obj.kind}` : `${models}/${version}/${obj.kind}`)[obj.kind];
  } catch (e) {
    console.error(`${id}: unknown apiVersion/kind ${obj.apiVersion} ${obj.kind}`); failed++; continue;
  }
  try { new Model(obj).validate(); } catch (e) { console.error(`${id}: ${e.message}`); failed++; }
}
console.log(JSON.stringify(out));
process.exit(failed ? 1 : 0);
