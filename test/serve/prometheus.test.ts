import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { bytesOf, KILO_ITEMS, WATCHFIRE_ITEMS } from '../metrics/fixture.js';
import { ALERTS, alertRules, dashboardPanels } from '../metrics/deploy-files.js';
import { startPrometheus } from '../metrics/servers.js';
import { YEARLY, sceneProviders, serveInProcess, serveScene } from './harness.js';

interface VectorResult {
  metric: Record<string, string>;
  value: [number, string];
}
interface QueryAnswer {
  status: string;
  error?: string;
  data: { resultType: string; result: VectorResult[] };
}

async function query(prometheus: string, expr: string): Promise<QueryAnswer> {
  const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
  return (await response.json()) as QueryAnswer;
}

describe('a real Prometheus server scraping serve', () => {
  it('answers a query for agent_janitor_scratch_bytes, runs every dashboard query, and loads the alert rules', async () => {
    const scene = serveScene();
    const { serve } = await serveInProcess(scene, YEARLY, sceneProviders(scene));
    await waitFor(() => serve.runner.lastPass !== null);
    expect(serve.runner.lastPass?.succeeded).toBe(true);

    const target = `127.0.0.1:${serve.address.port}`;
    const prometheus = await startPrometheus(tempDir('aj-prometheus-'), 'agent-janitor', [target], [ALERTS]);

    let scratch: QueryAnswer | undefined;
    await waitFor(async () => {
      scratch = await query(prometheus.url, 'agent_janitor_scratch_bytes');
      return scratch.status === 'success' && scratch.data.result.length === 2;
    }, 20_000);
    const byKey = new Map(
      (scratch as QueryAnswer).data.result.map((entry) => [`${entry.metric.provider}/${entry.metric.kind}`, entry]),
    );
    const alive = WATCHFIRE_ITEMS.filter((item) => item.name !== 'dead').reduce((sum, item) => sum + bytesOf(item), 0);
    const kept = KILO_ITEMS.filter((item) => item.name !== 'gone').reduce((sum, item) => sum + bytesOf(item), 0);
    expect(Number(byKey.get('watchfire/session-home')?.value[1])).toBe(alive);
    expect(Number(byKey.get('kilo/checkpoint-repo')?.value[1])).toBe(kept);
    expect(byKey.get('kilo/checkpoint-repo')?.metric).toMatchObject({
      job: 'agent-janitor',
      instance: target,
      __name__: 'agent_janitor_scratch_bytes',
    });

    const runs = await query(prometheus.url, 'agent_janitor_runs_total{result="success"}');
    expect(runs.data.result.map((entry) => Number(entry.value[1]))).toEqual([1]);

    // Every panel of the dashboard is a query this Prometheus accepts; the scratch panel has data.
    for (const panel of dashboardPanels()) {
      for (const target of panel.targets ?? []) {
        const expr = target.expr.replaceAll('$instance', '.*');
        const answer = await query(prometheus.url, expr);
        expect(answer, `${panel.title}: ${expr}`).toMatchObject({ status: 'success' });
        if (panel.title === 'Scratch on disk by provider and kind') expect(answer.data.result).toHaveLength(2);
      }
    }

    // The alert rules load and evaluate against real series without error.
    await waitFor(async () => {
      const response = await fetch(`${prometheus.url}/api/v1/rules`);
      const body = (await response.json()) as { data: { groups: Array<{ rules: Array<{ health: string }> }> } };
      const rules = body.data.groups.flatMap((group) => group.rules);
      return rules.length === alertRules().length && rules.every((rule) => rule.health === 'ok');
    }, 20_000);
  });
});
