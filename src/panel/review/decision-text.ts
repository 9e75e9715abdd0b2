import type { TranslationBundle } from '@jupyterlab/translation';
import type { Decision, DecisionVerb } from '../../wire/types';

export function verbLabel(
  trans: TranslationBundle,
  verb: DecisionVerb
): string {
  switch (verb) {
    case 'approve':
      return trans.__('Approve');
    case 'edit':
      return trans.__('Edit');
    case 'reject':
      return trans.__('Reject');
    case 'respond':
      return trans.__('Respond');
  }
}

/** A decision in words: "Approved", "Rejected: not now", … */
export function describeDecision(
  trans: TranslationBundle,
  decision: Decision
): string {
  switch (decision.type) {
    case 'approve':
      return trans.__('Approved');
    case 'edit':
      return trans.__(
        'Edited the arguments to %1',
        JSON.stringify(decision.edited_action.args)
      );
    case 'reject':
      return decision.message
        ? trans.__('Rejected: %1', decision.message)
        : trans.__('Rejected');
    case 'respond':
      return trans.__('Responded: %1', decision.message);
  }
}
