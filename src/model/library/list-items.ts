/**
 * The list's rows: the store's summaries and the agents' threads it lacks,
 * with what the live sessions say now.
 */
import type {
  ConversationStatus,
  IConversationSummary
} from '../../transport/server/conversation-store';
import {
  type ConversationSession,
  storedStatus
} from '../conversation/session';

/** A conversation as the list shows it. */
export interface IConversationItem {
  readonly id: string;
  /** The title; "" for a conversation without a message yet. */
  readonly title: string;
  readonly endpointName: string | null;
  readonly updatedAt: number;
  readonly status: ConversationStatus;
  /** The conversation the panel shows. */
  readonly current: boolean;
}

export interface IListed {
  /** The store's summaries (already filtered by the store). */
  summaries: readonly IConversationSummary[];
  /** The agents' threads the store lacks. */
  remote: readonly IConversationSummary[];
  live: readonly ConversationSession[];
  current: ConversationSession;
  query: string;
}

/** The rows, newest first. */
export function listItems(listed: IListed): IConversationItem[] {
  const { current } = listed;
  const query = listed.query.toLowerCase();
  const byId = new Map<string, IConversationItem>();
  // The store filtered its own; the agents' threads are filtered by title here.
  const remote = listed.remote.filter(s =>
    s.title.toLowerCase().includes(query)
  );
  for (const summary of [...listed.summaries, ...remote]) {
    byId.set(summary.id, { ...summary, current: summary.id === current.id });
  }
  for (const session of listed.live) {
    const shown = session === current;
    const listedAlready = byId.has(session.id);
    const matches = !query || session.title.toLowerCase().includes(query);
    // The one shown is listed even before its first message, unless filtered out.
    const empty = session.model.entries.length === 0;
    if (!listedAlready && (!matches || (empty && !shown))) {
      continue;
    }
    const model = session.model;
    byId.set(session.id, {
      id: session.id,
      title: session.title,
      endpointName: model.endpointName,
      updatedAt: Math.max(
        session.lastActivity,
        byId.get(session.id)?.updatedAt ?? 0
      ),
      status: storedStatus(model.status),
      current: shown
    });
  }
  return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
}

/**
 * `summaries` with what the list showed of a released session first: kept
 * until the next refresh.
 */
export function withSummaryOf(
  summaries: IConversationSummary[],
  session: ConversationSession
): IConversationSummary[] {
  const { model } = session;
  if (model.entries.length === 0) {
    return summaries;
  }
  const summary: IConversationSummary = {
    ...(summaries.find(s => s.id === session.id) ?? {
      id: session.id,
      createdAt: Date.now(),
      revision: 0
    }),
    title: session.title,
    threadId: model.threadId,
    endpointName: model.endpointName,
    status: storedStatus(model.status),
    updatedAt: session.lastActivity,
    entryCount: model.entries.length
  };
  return [summary, ...summaries.filter(s => s.id !== session.id)];
}
