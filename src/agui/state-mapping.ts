/**
 * The thread-wide pictures of one run: `MESSAGES_SNAPSHOT` (reconciled with
 * what was streamed), the shared state and its patches, activities and
 * their patches, and the subagent runs' lifecycle.
 */
import { activityFrame, stateFrame } from '../wire/frame-builders';
import type { ISubagentFrame } from '../wire/frame-types';
import { isObject } from '../wire/json';
import { stringField, type IAguiEvent } from './events';
import { patched } from './patch';
import { type EventHandlers, type RunContext, subagentOf } from './run-context';
import { reconcileSnapshot } from './snapshot';
import type { ToolErrorLog } from './tool-errors';

type SubagentEventType =
  'SUBAGENT_STARTED' | 'SUBAGENT_FINISHED' | 'SUBAGENT_ERROR';

export class StateMapping {
  constructor(
    private readonly _run: RunContext,
    private readonly _toolErrors: ToolErrorLog
  ) {}

  readonly handlers: EventHandlers = {
    MESSAGES_SNAPSHOT: event => this._messagesSnapshot(event),
    STATE_SNAPSHOT: event => this._stateSnapshot(event),
    STATE_DELTA: event => this._stateDelta(event),
    ACTIVITY_SNAPSHOT: event => this._activitySnapshot(event),
    ACTIVITY_DELTA: event => this._activityDelta(event),
    SUBAGENT_STARTED: event => this._subagent('SUBAGENT_STARTED', event),
    SUBAGENT_FINISHED: event => this._subagent('SUBAGENT_FINISHED', event),
    SUBAGENT_ERROR: event => this._subagent('SUBAGENT_ERROR', event)
  };

  private _messagesSnapshot(event: IAguiEvent): void {
    const run = this._run;
    reconcileSnapshot(event.messages, {
      thread: run.thread,
      node: run.node,
      emit: (frame, subagentRunId) => run.emit(frame, subagentRunId),
      problem: found => run.report(found),
      toolFailed: (callId, name) => this._toolErrors.take(callId, name)
    });
    // The snapshot is the thread: it replaces the client's message list.
    if (Array.isArray(event.messages)) {
      run.thread.history.replace(event.messages);
    }
  }

  private _stateSnapshot(event: IAguiEvent): void {
    if (!('snapshot' in event)) {
      this._run.problem('STATE_SNAPSHOT without a "snapshot": ignored');
      return;
    }
    this._setState(event.snapshot);
    if (isObject(event.snapshot)) {
      this._toolErrors.recordStateMessages(event.snapshot.messages);
    }
  }

  private _stateDelta(event: IAguiEvent): void {
    const result = patched(this._run.thread.state, event.delta);
    if (result.ok) {
      this._setState(result.value);
    } else {
      this._run.problem(
        'STATE_DELTA not applied (%1); the state is kept as it was',
        result.reason
      );
    }
  }

  private _setState(state: unknown): void {
    this._run.thread.state = state;
    this._run.out.frame(stateFrame(state));
  }

  private _activitySnapshot(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'messageId');
    const type = stringField(event, 'activityType');
    if (id === null || type === null) {
      return this._run.problem('ACTIVITY_SNAPSHOT without an activityType');
    }
    const known = this._run.thread.activities.get(id);
    // `replace: false` asks to keep existing content (only deltas change it).
    if (known && event.replace === false) {
      return;
    }
    this._setActivity(id, type, event.content ?? {}, event);
  }

  private _activityDelta(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    const known = this._run.thread.activities.get(id);
    if (!known) {
      return this._run.problem('ACTIVITY_DELTA for unknown activity %1', id);
    }
    const result = patched(known.content, event.patch);
    if (!result.ok) {
      return this._run.problem(
        'ACTIVITY_DELTA for activity %1 not applied (%2)',
        id,
        result.reason
      );
    }
    const type = stringField(event, 'activityType') ?? known.type;
    this._setActivity(id, type, result.value, event);
  }

  private _setActivity(
    id: string,
    type: string,
    content: unknown,
    event: IAguiEvent
  ): void {
    const thread = this._run.thread;
    thread.activities.set(id, { type, content });
    thread.history.setActivity(id, type, content, subagentOf(event));
    this._run.emit(activityFrame(id, type, content), event.subagentRunId);
  }

  private _subagent(type: SubagentEventType, event: IAguiEvent): void {
    const id = this._run.requireId(event, 'subagentRunId');
    if (id === null) {
      return;
    }
    const names = this._run.thread.subagentNames;
    const name = stringField(event, 'name');
    if (type === 'SUBAGENT_STARTED') {
      names.set(id, name ?? id);
    } else if (!names.has(id)) {
      this._run.problem(
        '%1 for subagent run %2, which never started',
        type,
        id
      );
    }
    const frame: ISubagentFrame = {
      status: 'subagent',
      id,
      name: names.get(id) ?? null,
      description: stringField(event, 'description'),
      parent_id: stringField(event, 'parentSubagentRunId'),
      subagent_status: 'running',
      message: null
    };
    if (type === 'SUBAGENT_ERROR') {
      const message = stringField(event, 'message') || 'unknown error';
      frame.subagent_status = 'error';
      frame.message = message;
      this._run.problem('subagent %1 failed: %2', names.get(id) ?? id, message);
    } else if (type === 'SUBAGENT_FINISHED') {
      const outcome = isObject(event.outcome) ? event.outcome : {};
      const waiting = Array.isArray(outcome.interruptIds)
        ? outcome.interruptIds.filter(item => typeof item === 'string')
        : [];
      frame.subagent_status =
        outcome.type === 'suspended' ? 'suspended' : 'finished';
      frame.message = waiting.length > 0 ? waiting.join(', ') : null;
    }
    this._run.out.frame(frame);
  }
}
