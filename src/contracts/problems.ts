/**
 * A problem of the pure layers (`wire/problem.ts`) in the user's language,
 * for the layers that have a translator: transports, the model, the views.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IProblem } from '../wire/problem';

/** A problem translated; a string (words already translated) as it is. */
export function translated(
  message: string | IProblem,
  trans: TranslationBundle
): string {
  if (typeof message === 'string') {
    return message;
  }
  // The template is a literal in wire/ or agui/, which have no translator.
  // eslint-disable-next-line jupyter/no-dynamic-translation
  return trans.__(message.template, ...message.args.map(String));
}
