import * as z from 'zod';

/**
 * An extension's global state (its row of `state.vscdb`, Cline's standalone `globalState.json`):
 * its `taskHistory`, when it has one, is a list of history items. The other keys are the
 * extension's own.
 */
export const globalState = z.looseObject(
  { taskHistory: z.array(z.unknown(), { error: 'taskHistory is not a list of history items' }).nullish() },
  { error: 'not a JSON object' },
);
