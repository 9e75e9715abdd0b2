/**
 * What marks every transcript item the reducer makes: a key unique across
 * turns, and the subagent that produced it.
 */
import type { ISubagentTag } from './types';

// Item keys are unique across turns, so a view can key every item it shows.
let lastItemKey = 0;
export function nextItemKey(): number {
  lastItemKey += 1;
  return lastItemKey;
}

/** Items carry a `subagent` key only when a subagent produced them. */
export function tagged(subagent: ISubagentTag | undefined): {
  subagent?: ISubagentTag;
} {
  return subagent ? { subagent } : {};
}
