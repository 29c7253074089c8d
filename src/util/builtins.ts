import type * as ChildProcesses from 'node:child_process';

// Node's modules for children, sockets and threads bring streams, net and dgram with them, several
// milliseconds of every start, and a pass with nothing to ask git, no daemon to call and no lock to
// hold uses none of them: each is loaded when first used.

export const spawn = ((...args: Parameters<typeof ChildProcesses.spawn>) =>
  process.getBuiltinModule('node:child_process').spawn(...args)) as typeof ChildProcesses.spawn;

export const createConnection = (path: string) => process.getBuiltinModule('node:net').createConnection({ path });

export const startWorker = (file: string) => new (process.getBuiltinModule('node:worker_threads').Worker)(file);
