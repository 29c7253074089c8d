#!/usr/bin/env node
// The command: reads the command line, runs the command's module (imported when that command runs,
// so `--help` loads no provider), and maps typed errors to exit codes.
import { readCommandLine } from './commands/args.js';
import { LockHeldError, UsageError, errorMessage } from './model/errors.js';

const EXIT_OK = 0;
const EXIT_USAGE = 2;
const EXIT_LOCKED = 75;
const EXIT_FAILED = 1;

/** The one place typed errors become exit codes. */
async function main(argv: string[]): Promise<number> {
  const invocation = readCommandLine(argv);
  // Help or the version, already printed.
  if (!invocation) return EXIT_OK;
  switch (invocation.command) {
    case 'run':
      return (await import('./commands/run.js')).runCommand(invocation.args);
    case 'serve':
      return (await import('./commands/serve.js')).serveCommand(invocation.args);
    case 'report':
      return (await import('./commands/report.js')).reportCommand(invocation.args);
    case 'config':
      return (await import('./commands/config.js')).configCommand(invocation.args);
    case 'demo':
      return (await import('./commands/demo.js')).demoCommand(invocation.args);
  }
}

// The arguments after `node` and the script.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof LockHeldError) {
      process.stderr.write(`agent-janitor: ${err.message}\n`);
      process.exitCode = EXIT_LOCKED;
    } else if (err instanceof UsageError) {
      process.stderr.write(`agent-janitor: ${err.message}\n`);
      process.exitCode = EXIT_USAGE;
    } else {
      process.stderr.write(`agent-janitor: ${errorMessage(err)}\n`);
      process.exitCode = EXIT_FAILED;
    }
  },
);
