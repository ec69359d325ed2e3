import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { isEventType, type EventType } from './event.js';

/**
 * A list of event types, as a read of the feed and a webhook subscription take it (docs/rules.md
 * §15): at least one, each a known type, none twice; the one rule for both. `rule` is the caller's
 * sentence for field `types` (how its list is written, and the known types); a refusal adds what
 * broke it: a name that is no type (quoted, cut like every quote of what the caller sent; an empty
 * one is not), or the type named twice.
 */
export const readEventTypes = (
  names: readonly unknown[],
  rule: string,
): Result<readonly EventType[], ValidationFailed> => {
  if (names.length === 0) return fail(validationFailed('types', rule));
  const types: EventType[] = [];
  for (const name of names) {
    if (!isEventType(name)) {
      const fault = typeof name === 'string' && name !== '' ? `: '${quoteInput(name)}' is not one` : '';
      return fail(validationFailed('types', `${rule}${fault}`));
    }
    if (types.includes(name)) return fail(validationFailed('types', `${rule}: ${name} is named twice`));
    types.push(name);
  }
  return ok(types);
};
