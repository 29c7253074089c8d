import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ALERTS = path.join(ROOT, 'deploy/prometheus/alerts.yaml');
export const ALERT_TESTS = path.join(ROOT, 'deploy/prometheus/alerts.test.yaml');
export const DASHBOARD = path.join(ROOT, 'deploy/grafana/agent-janitor.json');

/** Every metric name of the contract (the last pass's gauges and serve's counters). */
export const CONTRACT_METRICS = new Set([
  'agent_janitor_reclaimed_bytes',
  'agent_janitor_items',
  'agent_janitor_refused_items',
  'agent_janitor_unfinished_items',
  'agent_janitor_scratch_bytes',
  'agent_janitor_reclaimable_bytes',
  'agent_janitor_held_bytes',
  'agent_janitor_provider_up',
  'agent_janitor_footprint_bytes',
  'agent_janitor_last_run_timestamp_seconds',
  'agent_janitor_last_success_timestamp_seconds',
  'agent_janitor_run_duration_seconds',
  'agent_janitor_reclaimed_bytes_total',
  'agent_janitor_refused_items_total',
  'agent_janitor_runs_total',
]);

export interface AlertRule {
  alert: string;
  expr: string;
}
export interface DashboardPanel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

export const alertRules = (): AlertRule[] =>
  (parse(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap(
    (group) => group.rules,
  );
export const dashboardPanels = (): DashboardPanel[] =>
  (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: DashboardPanel[] }).panels;
