/**
 * "Always allow <tool> in this conversation" for ordinary reviews
 * (docs/protocol.md §16.6): a review whose every row is such a tool, and
 * may be approved, is approved by the panel without asking. The notebook
 * tools have their own review of the change (docs/protocol.md §12.9) and are left to it.
 */
import type { IInterruptHandler } from '../../contracts/extension-points';
import { notebookToolCall } from '../../contracts/notebook-tools';
import { approve } from '../../wire/decisions';
import type { IActionRequest } from '../../wire/types';
import type { IChangeReviews } from './change-reviews';

/** Whether the panel approves `action` itself: its tool is always allowed here. */
export function isAlwaysAllowed(
  reviews: IChangeReviews,
  action: IActionRequest
): boolean {
  return (
    action.name !== null &&
    !action.synthetic &&
    action.allowed.includes('approve') &&
    notebookToolCall(action) === null &&
    reviews.isAlwaysAllowed(action.name)
  );
}

/** The handler that approves the always allowed tools' reviews. */
export function alwaysAllowedReviews(
  reviews: IChangeReviews
): IInterruptHandler {
  return {
    handles: action => isAlwaysAllowed(reviews, action),
    decide: async () => approve()
  };
}
