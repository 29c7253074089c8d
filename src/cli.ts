// Start-up cost is paid by every `run` from cron or a timer: this file statically imports only
// what every invocation needs. A command's module (and with it zod, yaml, pino, SQLite, the
// providers, the metrics) is imported when that command runs. `--version` alone never gets here:
// dist/cli.js, the launcher scripts/bundle.mjs writes, answers it without loading this bundle.
import { LockHeldError, UsageError, errorMessage } from './core/errors.js';
import { VERSION } from './core/version.js';

const EXIT_OK = 0;
const EXIT_USAGE = 2;
const EXIT_LOCKED = 75;
const EXIT_FAILED = 1;

/** The one place typed errors become exit codes. */
async function main(argv: string[]): Promise<number> {
  const [{ default: yargs }, { withPassOptions }] = await Promise.all([
    import('yargs'),
    import('./commands/options.js'),
  ]);
  let code = EXIT_OK;
  const run = (work: Promise<number>) =>
    work.then((result) => {
      code = result;
    });
  await yargs(argv)
    .scriptName('agent-janitor')
    .version(VERSION)
    .strict()
    .demandCommand(1, 'name a command: run, serve, report, demo or config')
    .command(
      'run',
      'one reconcile pass over every enabled provider, then exit',
      (y) =>
        withPassOptions(y)
          .option('report-only', { alias: 'dry-run', type: 'boolean', describe: 'change nothing on disk' })
          .option('json', { type: 'boolean', describe: 'print the report JSON on stdout' }),
      (args) => run(import('./commands/run.js').then(({ runCommand }) => runCommand(args))),
    )
    .command(
      'serve',
      'long-running: passes on the cron schedule, HTTP /metrics, /healthz and /report',
      (y) =>
        withPassOptions(y)
          .option('listen', { type: 'string', describe: 'HOST:PORT of the HTTP server; replaces `serve.listen`' })
          .option('report-only', { alias: 'dry-run', type: 'boolean', describe: 'change nothing on disk' }),
      (args) => run(import('./commands/serve.js').then(({ serveCommand }) => serveCommand(args))),
    )
    .command(
      'report',
      'print the latest report (Markdown, or JSON with --json)',
      (y) => withPassOptions(y).option('json', { type: 'boolean' }),
      (args) => run(import('./commands/report.js').then(({ reportCommand }) => reportCommand(args))),
    )
    .command(
      'config',
      'validate the config and print the effective config as YAML',
      (y) => withPassOptions(y),
      (args) => run(import('./commands/config.js').then(({ configCommand }) => configCommand(args))),
    )
    .command(
      'demo',
      'build a realistic sandbox, run a report-only pass and a real pass on it',
      (y) =>
        y
          .option('dir', { type: 'string', describe: 'an absent or empty folder for the sandbox' })
          .option('log-level', { type: 'string', default: 'warn' }),
      (args) => run(import('./commands/demo.js').then(({ demoCommand }) => demoCommand({ dir: args.dir }))),
    )
    .fail((message, err) => {
      throw err ?? new UsageError(message);
    })
    .help()
    .parseAsync();
  return code;
}

// The arguments after `node` and the script, as yargs' hideBin takes them.
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
