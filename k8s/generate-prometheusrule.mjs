#!/usr/bin/env node
// Writes k8s/base/prometheusrule.yaml from deploy/prometheus/alerts.yaml, the rule file that
// promtool checks, so the cluster's alerts are exactly those rules. Run it after editing them:
//   node k8s/generate-prometheusrule.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const here = (relative) => fileURLToPath(new URL(relative, import.meta.url));
export const ALERTS = here('../deploy/prometheus/alerts.yaml');
export const OUTPUT = here('base/prometheusrule.yaml');

/** The PrometheusRule manifest (YAML text) holding the rule groups of a Prometheus rule file. */
export function prometheusRuleYaml(rulesText) {
  const rules = parse(rulesText);
  if (!rules || !Array.isArray(rules.groups) || rules.groups.length === 0) {
    throw new Error(`${ALERTS}: expected a Prometheus rule file with a non-empty groups: list`);
  }
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'agent-janitor',
      labels: { 'app.kubernetes.io/name': 'agent-janitor', 'app.kubernetes.io/part-of': 'agent-janitor' },
    },
    spec: { groups: rules.groups },
  };
  const header =
    '# Generated from deploy/prometheus/alerts.yaml by k8s/generate-prometheusrule.mjs: edit those rules,\n# then run `node k8s/generate-prometheusrule.mjs`.\n';
  return header + stringify(manifest, { lineWidth: 0 });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OUTPUT, prometheusRuleYaml(readFileSync(ALERTS, 'utf8')));
  process.stdout.write(`wrote ${OUTPUT}\n`);
}
