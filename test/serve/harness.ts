import path from 'node:path';
import { afterEach } from 'vitest';
import type { Provider } from '../../src/provider-api/provider.js';
import { startServe, type ServeHandle } from '../../src/serve/serve.js';
import { tempDir } from '../helpers/temp.js';
import { type Sample, parseExposition } from '../metrics/exposition.js';
import {
  KILO_ITEMS,
  WATCHFIRE_ITEMS,
  buildItems,
  fixtureConfig,
  fixturePassOptions,
  fixtureProvider,
  type FixtureProviderOptions,
} from '../metrics/fixture.js';

/** A schedule that does not fire during a test: only the pass at start runs. */
export const YEARLY = '0 0 1 1 *';
export const EVERY_SECOND = '* * * * * *';

const serving: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(serving.splice(0).map((serve) => serve.stop()));
});

/** A promise the test resolves when it wants a held pass to go on. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open: () => open() };
}

export interface ServeScene {
  dir: string;
  home: string;
  watchfireRoot: string;
  kiloRoot: string;
  reportDir: string;
  textfile: string;
}

export function serveScene(): ServeScene {
  const dir = tempDir('aj-serve-');
  const home = path.join(dir, 'home');
  const watchfireRoot = path.join(home, '.watchfire');
  const kiloRoot = path.join(home, '.local', 'share', 'kilo');
  buildItems(watchfireRoot, WATCHFIRE_ITEMS);
  buildItems(kiloRoot, KILO_ITEMS);
  return {
    dir,
    home,
    watchfireRoot,
    kiloRoot,
    reportDir: path.join(dir, 'report'),
    textfile: path.join(dir, 'textfile', 'agent_janitor.prom'),
  };
}

export function sceneProviders(
  scene: ServeScene,
  watchfire: FixtureProviderOptions = {},
  kilo: FixtureProviderOptions = {},
): Provider[] {
  return [
    fixtureProvider('watchfire', scene.watchfireRoot, WATCHFIRE_ITEMS, watchfire),
    fixtureProvider('kilo', scene.kiloRoot, KILO_ITEMS, kilo),
  ];
}

/** serve in this process, on a free loopback port, stopped after the test. */
export async function serveInProcess(
  scene: ServeScene,
  schedule: string,
  providers: Provider[],
  options: { pushgateway?: string } = {},
) {
  const config = await fixtureConfig({ reportDir: scene.reportDir, metricsFile: scene.textfile, ...options });
  const serve = await startServe({
    pass: fixturePassOptions(config, providers),
    listen: { host: '127.0.0.1', port: 0 },
    schedule,
  });
  serving.push(serve);
  return { serve, url: `http://127.0.0.1:${serve.address.port}` };
}

export async function get(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

export async function getJson<T = Record<string, unknown>>(url: string): Promise<{ status: number; body: T }> {
  const { status, text } = await get(url);
  return { status, body: JSON.parse(text) as T };
}

export async function metricsOf(url: string): Promise<Sample[]> {
  const { status, text } = await get(`${url}/metrics`);
  if (status !== 200) throw new Error(`/metrics answered ${status}`);
  return parseExposition(text);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
