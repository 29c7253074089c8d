import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort, stop, waitUntil } from './cline-cli.js';

/**
 * One Cline 3 instance as `cline` 1.0.10 starts it: its host (`cline-host`, the stand-in for VS
 * Code, whose working directory is the workspace) and Cline's core (`node cline-core.js`), joined
 * over gRPC. The Go CLI starts them itself but gives the core about ten seconds, and the core
 * takes longer than that to load on a busy machine; so the test starts the same two programs with
 * the same arguments and waits for the core to register in `locks.db`.
 *
 * Between the core and its host sits a small bridge of the test's own, built from the CLI's own
 * gRPC library and service descriptors: it passes every call through, and answers "Delete" to the
 * one modal question Cline asks before deleting a task, which the terminal host cannot answer
 * (without it, Cline's own task deletion cannot run outside VS Code).
 */
export interface ClineCore {
  address: string;
  /** Everything the core and host wrote to their terminals, for a failing test's message. */
  output(): string;
  /** Cline's own deletion of tasks (`TaskService.deleteTasksWithIds`), as its history view calls it. */
  deleteTasks(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

type Grpc = {
  Server: new () => GrpcServer;
  ServerCredentials: { createInsecure(): unknown };
  credentials: { createInsecure(): unknown };
  makeGenericClientConstructor(
    service: unknown,
    name: string,
  ): new (
    address: string,
    credentials: unknown,
  ) => Record<string, GrpcMethod>;
  loadPackageDefinition(
    definition: unknown,
  ): Record<string, Record<string, new (address: string, credentials: unknown) => Record<string, GrpcMethod>>>;
};
type GrpcMethod = (...args: unknown[]) => unknown;
type GrpcServer = {
  addService(service: unknown, handlers: Record<string, unknown>): void;
  bindAsync(address: string, credentials: unknown, done: (err: Error | null, port: number) => void): void;
  forceShutdown(): void;
};

export async function startClineCore(dir: string, workspace: string, env: NodeJS.ProcessEnv): Promise<ClineCore> {
  const require = createRequire(path.join(dir, 'package.json'));
  const grpc = require(path.join(dir, 'node_modules', '@grpc', 'grpc-js')) as Grpc;
  const loader = require(path.join(dir, 'node_modules', '@grpc', 'proto-loader')) as {
    loadFileDescriptorSetFromBuffer(
      buffer: Buffer,
      options: Record<string, unknown>,
    ): Record<string, Record<string, Method>>;
  };
  const health = require(path.join(dir, 'node_modules', 'grpc-health-check')) as {
    HealthImplementation: new (statuses: Record<string, string>) => { addToServer(server: GrpcServer): void };
  };
  const definition = loader.loadFileDescriptorSetFromBuffer(
    readFileSync(path.join(dir, 'proto', 'descriptor_set.pb')),
    {
      keepCase: true,
      longs: String,
      enums: Number,
    },
  );

  const hostPort = await freePort();
  const bridgePort = await freePort();
  const corePort = await freePort();
  let log = '';
  const capture = (child: ChildProcess, name: string) => {
    child.stdout?.on('data', (chunk: Buffer) => (log += `[${name}] ${chunk}`));
    child.stderr?.on('data', (chunk: Buffer) => (log += `[${name}] ${chunk}`));
  };

  const host = spawn(path.join(dir, 'bin', 'cline-host-linux-amd64'), ['--port', String(hostPort)], {
    cwd: workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  capture(host, 'host');
  const bridge = new grpc.Server();
  for (const [name, service] of Object.entries(definition)) {
    if (!name.startsWith('host.') || !Object.values(service).some((method) => method?.path)) continue;
    const Client = grpc.makeGenericClientConstructor(service, name);
    const upstream = new Client(`127.0.0.1:${hostPort}`, grpc.credentials.createInsecure());
    const handlers: Record<string, unknown> = {};
    for (const [key, method] of Object.entries(service)) {
      handlers[key] = method.responseStream
        ? (call: StreamCall) => {
            const up = upstream[key]?.(call.request) as StreamCall;
            up.on('data', (data: unknown) => call.write(data));
            up.on('end', () => call.end());
            up.on('error', (err: Error) => call.destroy(err));
            call.on('cancelled', () => up.cancel());
          }
        : (
            call: { request: { options?: { items?: string[] } } },
            callback: (err: Error | null, value?: unknown) => void,
          ) => {
            if (
              name === 'host.WindowService' &&
              key === 'showMessage' &&
              call.request.options?.items?.includes('Delete')
            ) {
              callback(null, { selected_option: 'Delete' });
              return;
            }
            upstream[key]?.(call.request, callback);
          };
    }
    bridge.addService(service, handlers);
  }
  new health.HealthImplementation({ '': 'SERVING' }).addToServer(bridge);
  await new Promise<void>((resolve, reject) =>
    bridge.bindAsync(`127.0.0.1:${bridgePort}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );

  const data = path.join(env.HOME as string, '.cline');
  const core = spawn(
    process.execPath,
    [
      path.join(dir, 'cline-core.js'),
      '--port',
      String(corePort),
      '--host-bridge-port',
      String(bridgePort),
      '--config',
      data,
    ],
    {
      cwd: workspace,
      env: {
        ...env,
        NODE_PATH: [path.join(dir, 'node_modules'), path.join(dir, 'fake_node_modules')].join(path.delimiter),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  capture(core, 'core');
  const address = `127.0.0.1:${corePort}`;
  const close = async () => {
    await stop(core);
    await stop(host);
    bridge.forceShutdown();
  };
  try {
    await waitUntil(
      `Cline's core to start (${address})`,
      () => log.includes('All services started') || core.exitCode !== null,
      180_000,
    );
    if (core.exitCode !== null) throw new Error(`Cline's core exited ${core.exitCode}`);
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}\n${log.slice(-3000)}`);
  }

  const packageDefinition = grpc.loadPackageDefinition(definition) as Record<
    string,
    Record<string, new (address: string, credentials: unknown) => Record<string, GrpcMethod>>
  >;
  const TaskService = packageDefinition.cline?.TaskService as new (
    address: string,
    credentials: unknown,
  ) => Record<string, GrpcMethod>;
  return {
    address,
    output: () => log,
    deleteTasks: (ids) =>
      new Promise<void>((resolve, reject) => {
        const client = new TaskService(address, grpc.credentials.createInsecure());
        client.deleteTasksWithIds?.({ value: ids }, (err: Error | null) => (err ? reject(err) : resolve()));
      }),
    close,
  };
}

interface Method {
  path?: string;
  responseStream?: boolean;
}

interface StreamCall {
  request: unknown;
  write(data: unknown): void;
  end(): void;
  destroy(err: Error): void;
  cancel(): void;
  on(event: string, listener: (...args: never[]) => void): void;
}
