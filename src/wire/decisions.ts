/**
 * Decision and resume builders (docs/protocol.md §5.5–5.6). Every builder returns
 * exactly the JSON the producer expects, or throws an Error saying why not.
 */
import type {
  Decision,
  DecisionVerb,
  IActionRequest,
  IInterruptCard
} from './types';

export function approve(): Decision {
  return { type: 'approve' };
}

/** `args` is the whole new argument object; `name` the action's name. */
export function edit(name: string, args: unknown): Decision {
  if (!name) {
    throw new Error('An edit decision needs the name of the action it edits.');
  }
  if (args === undefined) {
    throw new Error(`An edit decision for "${name}" needs the new arguments.`);
  }
  return { type: 'edit', edited_action: { name, args } };
}

/** A blank reason is left out rather than sent as an empty message. */
export function reject(message?: string): Decision {
  return message?.trim() ? { type: 'reject', message } : { type: 'reject' };
}

/** The human answers in the tool's place; the message is required. */
export function respond(message: string): Decision {
  if (!message?.trim()) {
    throw new Error('A respond decision needs a non-empty message.');
  }
  return { type: 'respond', message };
}

/**
 * The resume envelope for a turn's interrupt cards: one decision per action
 * row, rows of all cards together in order (a card with no action request
 * has one synthetic row). Each decision must be allowed for its row.
 */
export function buildResume(
  cards: readonly IInterruptCard[],
  decisions: readonly Decision[]
): { decisions: Decision[] } {
  const rows = cards.flatMap(card => card.actions);
  if (rows.length === 0) {
    throw new Error('There is no interrupt to answer.');
  }
  if (decisions.length !== rows.length) {
    throw new Error(
      `Expected ${rows.length} decision(s), one per action in order, got ${decisions.length}.`
    );
  }
  return {
    decisions: decisions.map((decision, index) =>
      checkedDecision(decision, rows[index], index)
    )
  };
}

/** How many decisions of a resume answer `card`: one per action row. */
export function reviewRowCount(card: IInterruptCard): number {
  return Math.max(card.actions.length, 1);
}

/** Rebuild through the builders so only the documented keys are sent. */
function checkedDecision(
  decision: Decision,
  row: IActionRequest,
  index: number
): Decision {
  const verb: DecisionVerb = decision.type;
  if (!row.allowed.includes(verb)) {
    throw new Error(
      `Decision ${index + 1} ("${verb}") is not allowed for ${
        row.name === null ? 'this action' : `"${row.name}"`
      }; allowed: ${row.allowed.join(', ') || 'none'}.`
    );
  }
  switch (decision.type) {
    case 'approve':
      return approve();
    case 'edit':
      return edit(decision.edited_action?.name, decision.edited_action?.args);
    case 'reject':
      return reject(decision.message);
    case 'respond':
      return respond(decision.message);
  }
}
