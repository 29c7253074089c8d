import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';

/** The binaries of Debian's prometheus, prometheus-node-exporter and prometheus-pushgateway packages. */
const BIN = {
  prometheus: '/usr/bin/prometheus',
  promtool: '/usr/bin/promtool',
  nodeExporter: '/usr/bin/prometheus-node-exporter',
  pushgateway: '/usr/bin/prometheus-pushgateway',
} as const;

export interface RunningServer {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const running: RunningServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

/** A port nothing listens on right now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server on a free loopback port and waits until `readyPath` answers 200. Another process
 * may take the port between the pick and the start; the start is then retried on a new port.
 */
async function startServer(
  command: string,
  argsFor: (address: string) => string[],
  readyPath: string,
): Promise<RunningServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const child = spawn(command, argsFor(`127.0.0.1:${port}`), { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const server: RunningServer = {
      url: `http://127.0.0.1:${port}`,
      port,
      child,
      output: () => output,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
      },
    };
    running.push(server);
    try {
      await untilReady(`${server.url}${readyPath}`, child, () => output);
      return server;
    } catch (err) {
      lastError = err;
      await server.stop();
    }
  }
  throw lastError;
}

async function untilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the server exited: ${output()}`);
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url}: not ready after 20s: ${output()}`);
}

/** node_exporter with only the textfile collector, reading `dir`. */
export function startNodeExporter(dir: string): Promise<RunningServer> {
  return startServer(
    BIN.nodeExporter,
    (address) => [
      '--collector.disable-defaults',
      '--collector.textfile',
      `--collector.textfile.directory=${dir}`,
      `--web.listen-address=${address}`,
    ],
    '/metrics',
  );
}

/** A Pushgateway that keeps nothing on disk. */
export function startPushgateway(): Promise<RunningServer> {
  return startServer(BIN.pushgateway, (address) => [`--web.listen-address=${address}`], '/-/ready');
}

/** A Prometheus server scraping `targets` (host:port) every second, its data in `dir`. */
export function startPrometheus(
  dir: string,
  job: string,
  targets: string[],
  ruleFiles: string[] = [],
): Promise<RunningServer> {
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      `rule_files: [${ruleFiles.map((file) => JSON.stringify(file)).join(', ')}]`,
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]`,
      '',
    ].join('\n'),
  );
  return startServer(
    BIN.prometheus,
    (address) => [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=${address}`,
    ],
    '/-/ready',
  );
}

export interface PromtoolResult {
  status: number | null;
  output: string;
}

export function promtool(args: string[], input?: string): PromtoolResult {
  const result = spawnSync(BIN.promtool, args, { input, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
