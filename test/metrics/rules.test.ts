import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERTS, ALERT_TESTS, CONTRACT_METRICS, DASHBOARD, alertRules, dashboardPanels } from './deploy-files.js';
import { promtool } from './servers.js';

interface RuleTest {
  alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }>;
}

const metricNames = (text: string) => new Set(text.match(/agent_janitor_[a-z_]+/g) ?? []);

describe('Prometheus rules', () => {
  it('promtool check rules accepts alerts.yaml', () => {
    const result = promtool(['check', 'rules', ALERTS]);
    expect(result.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
    expect(result.status).toBe(0);
  });

  it('promtool test rules passes alerts.test.yaml', () => {
    const result = promtool(['test', 'rules', ALERT_TESTS]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('every rule has a unit test where it fires and one where it must not', () => {
    const tests = (parse(readFileSync(ALERT_TESTS, 'utf8')) as { tests: RuleTest[] }).tests.flatMap(
      (test) => test.alert_rule_test,
    );
    for (const rule of alertRules()) {
      const cases = tests.filter((test) => test.alertname === rule.alert);
      expect(
        cases.some((test) => test.exp_alerts.length > 0),
        `${rule.alert} fires in a test`,
      ).toBe(true);
      expect(
        cases.some((test) => test.exp_alerts.length === 0),
        `${rule.alert} stays quiet in a test`,
      ).toBe(true);
    }
  });

  it('covers what the issue asks for, with the contract metric names only', () => {
    const rules = alertRules();
    const uses = (metric: string) => rules.some((rule) => metricNames(rule.expr).has(metric));
    for (const metric of [
      'agent_janitor_scratch_bytes',
      'agent_janitor_items',
      'agent_janitor_refused_items',
      'agent_janitor_unfinished_items',
      'agent_janitor_last_success_timestamp_seconds',
      'agent_janitor_provider_up',
      'agent_janitor_held_bytes',
      'agent_janitor_footprint_bytes',
    ]) {
      expect(uses(metric), metric).toBe(true);
    }
    for (const rule of rules)
      for (const name of metricNames(rule.expr))
        expect(CONTRACT_METRICS.has(name), `${rule.alert}: ${name}`).toBe(true);
  });
});

describe('Grafana dashboard', () => {
  it('is an importable dashboard that shows scratch, reclaimed bytes, refusals, unfinished work, the footprint and the last success', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      uid: string;
      title: string;
      __inputs: Array<{ pluginId: string }>;
    };
    expect(dashboard.uid).toBe('agent-janitor');
    expect(dashboard.__inputs.map((input) => input.pluginId)).toEqual(['prometheus']);
    const exprs = dashboardPanels().flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    expect(exprs.some((expr) => /sum by \(provider, kind\) \(agent_janitor_scratch_bytes/.test(expr))).toBe(true);
    expect(exprs.some((expr) => expr.includes('agent_janitor_reclaimed_bytes{'))).toBe(true);
    expect(exprs.some((expr) => /sum by \(reason\) \(agent_janitor_refused_items/.test(expr))).toBe(true);
    expect(exprs.some((expr) => expr.includes('agent_janitor_unfinished_items'))).toBe(true);
    expect(exprs.some((expr) => expr.includes('agent_janitor_last_success_timestamp_seconds'))).toBe(true);
    expect(exprs.some((expr) => expr.includes('agent_janitor_reclaimable_bytes{'))).toBe(true);
    expect(exprs.some((expr) => expr.includes('agent_janitor_held_bytes{'))).toBe(true);
    expect(exprs.some((expr) => /sum by \(provider, category\) \(agent_janitor_footprint_bytes/.test(expr))).toBe(true);
    for (const expr of exprs)
      for (const name of metricNames(expr)) expect(CONTRACT_METRICS.has(name), `${expr}: ${name}`).toBe(true);
  });
});
