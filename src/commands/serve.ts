import { passPlaces, rejectUnusablePlaces } from '../config/own-places.js';
import { parseListen } from '../serve/listen.js';
import { serveUntilSignal } from '../serve/until-signal.js';
import { createLogger } from './logger.js';
import { LOG_LEVEL, type ServeArgs } from './options.js';
import { rejectOverlaps } from './overlaps.js';
import { selectProviders } from '../pass/pass.js';
import { PROVIDERS } from '../providers/registry.js';
import { configFromArgs, passOptionsFrom } from './pass-config.js';

/**
 * `agent-janitor serve`: passes on the config's schedule and an HTTP server, until SIGTERM or
 * SIGINT; then the pass under way is finished and the exit is 0.
 */
export async function serveCommand(args: ServeArgs): Promise<number> {
  const config = await configFromArgs(args);
  const where = config.source ?? 'built-in defaults';
  const listen =
    args.listen !== undefined
      ? parseListen(args.listen, '--listen')
      : parseListen(config.serve.listen, `${where}: serve.listen`);
  await rejectOverlaps(config);
  // What a pass would refuse, refused at start: not a server that fails every pass.
  selectProviders(PROVIDERS, config, args.only);
  await rejectUnusablePlaces(passPlaces(config, args));
  const log = await createLogger(args['log-level'] ?? LOG_LEVEL.serve);
  await serveUntilSignal({
    pass: passOptionsFrom(args, config, log),
    listen,
    schedule: config.serve.schedule,
  });
  return 0;
}
