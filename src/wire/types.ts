/**
 * The turn model: what one agent turn looks like once its frames are folded.
 *
 * Pure data, shared by every layer. See docs in `fixtures/chunk-wire/README.md`
 * and docs/protocol.md §4, §5 (reducer rules, interrupts).
 */
/**
 * The answer to an AG-UI 1.0 interrupt (docs/protocol.md §8.9): a payload
 * for what it asked, or abandoned.
 */
export type InterruptResponse =
  { status: 'resolved'; payload: unknown } | { status: 'cancelled' };

/** The four canonical decision verbs, in canonical order. */
export type DecisionVerb = 'reject' | 'edit' | 'respond' | 'approve';

export const CANONICAL_VERBS: readonly DecisionVerb[] = [
  'reject',
  'edit',
  'respond',
  'approve'
];

/** A decision answering one action request (docs/protocol.md §5.5). */
export type Decision =
  | { type: 'approve' }
  | { type: 'edit'; edited_action: { name: string; args: unknown } }
  | { type: 'reject'; message?: string }
  | { type: 'respond'; message: string };

/** How a turn ended. `null` while it still runs. */
export type Outcome = 'complete' | 'interrupted' | 'error' | 'cancelled';

export type ToolStatus = 'pending' | 'success' | 'error' | 'unknown';

/**
 * Which subagent produced an item or an activity (AG-UI `subagentRunId`).
 * Absent when the agent itself produced it, and on every chunk-wire turn.
 */
export interface ISubagentTag {
  /** The subagent run id: one per invocation, not per subagent definition. */
  id: string;
  /** Its name from `SUBAGENT_STARTED`, when that was seen. */
  name: string | null;
}

export interface ITextBlock {
  readonly kind: 'text';
  readonly key: number;
  text: string;
  node: string | null;
  messageId: string | null;
  subagent?: ISubagentTag;
}

export interface IReasoningBlock {
  readonly kind: 'reasoning';
  readonly key: number;
  text: string;
  node: string | null;
  subagent?: ISubagentTag;
}

export interface IToolCard {
  readonly kind: 'tool';
  readonly key: number;
  /** The producer's tool-call id (contract B), else null. */
  callId: string | null;
  name: string;
  /** What the tool does, in words, when the server says (an MCP tool's description). */
  title?: string;
  /** Parsed arguments; `undefined` for an orphan result (no call seen). */
  args: unknown;
  /** The raw argument text when the producer could not parse it (`_raw`). */
  rawArgs: string | null;
  status: ToolStatus;
  /** The result as received; `undefined` while pending. */
  result: unknown;
  /** The result ends with the producer's `…(truncated)` marker. */
  truncated: boolean;
  durationMs: number | null;
  /** A result with no matching call. */
  orphan: boolean;
  subagent?: ISubagentTag;
  /**
   * A call of a tool the panel offered, run here (docs/protocol.md §8.11);
   * absent for every other call. `delivered`: its result went to the agent.
   */
  clientTool?: { delivered: boolean };
}

export interface IExtractionCard {
  readonly kind: 'extraction';
  readonly key: number;
  toolName: string;
  extractedType: string;
  data: unknown;
  /** Key of the tool card this extraction follows, when there is one. */
  toolKey: number | null;
}

/**
 * What an AG-UI 1.0 interrupt that is not a LangGraph review asks for
 * (docs/protocol.md §8.9): it is answered with a payload, not decisions.
 */
export interface IInterruptRequest {
  /** Why the run stopped, e.g. `input_required`, `tool_call`. */
  reason: string;
  /** The prompt for whoever answers. */
  message: string | null;
  /** The JSON Schema the answer must match; null: any answer. */
  responseSchema: unknown;
  /** When it stops being answerable (as sent); null: never. */
  expiresAt: string | null;
  /** The tool call it concerns (a tool approval). */
  toolCallId: string | null;
}

/** One row of a review: an action request read as docs/protocol.md §5.3–5.4. */
export interface IActionRequest {
  /** Resolved name, or null when the placeholder "an action" applies. */
  name: string | null;
  description: string | null;
  args: unknown;
  /** Allowed decisions for this row (docs/protocol.md §5.4). */
  allowed: DecisionVerb[];
  /** `review_configs[i].args_schema` when the producer gave one. */
  argsSchema: unknown;
  /** True for the generic "agent paused" row of an empty `action_requests`. */
  synthetic: boolean;
  /** The action request exactly as received. */
  raw: unknown;
}

export interface IInterruptCard {
  readonly kind: 'interrupt';
  readonly key: number;
  actions: IActionRequest[];
  allowedDecisions: DecisionVerb[];
  /** Interrupt ids when the producer revealed them (AG-UI). */
  interruptIds: string[];
  /** The decisions sent for this card, once answered (`[]` for a request). */
  answered: Decision[] | null;
  /** An AG-UI 1.0 interrupt asking for a payload; absent for a review. */
  request?: IInterruptRequest;
  /** The answer sent for `request`, once answered. */
  response?: InterruptResponse;
  /**
   * The producer had no review waiting when `answered` was sent: it was
   * answered elsewhere (another tab or window) and these decisions were not
   * applied. Absent until then.
   */
  answeredElsewhere?: boolean;
}

export type TranscriptItem =
  ITextBlock | IReasoningBlock | IToolCard | IExtractionCard | IInterruptCard;

/** Something the agent reports doing (AG-UI `ACTIVITY_*`), kept up to date. */
export interface IActivity {
  /** The activity message id; later snapshots and patches replace by it. */
  id: string;
  /** The producer's own kind of activity, e.g. `search` or `plan`. */
  activityType: string;
  /** The latest content (any JSON object). */
  content: unknown;
  subagent?: ISubagentTag;
}

export type SubagentStatus = 'running' | 'finished' | 'suspended' | 'error';

/** One subagent invocation seen during a turn (AG-UI `SUBAGENT_*`). */
export interface ISubagentRun {
  id: string;
  name: string | null;
  description: string | null;
  /** The subagent run that started this one, if it is nested. */
  parentId: string | null;
  status: SubagentStatus;
  /** The error text (`error`) or the interrupt ids it waits on (`suspended`). */
  message: string | null;
}

/** Tokens a turn's run reported (AG-UI `TokenUsage`, summed over models). */
export interface ITokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface ITurnError {
  message: string;
  traceback: string | null;
}

/** What one turn looks like so far. */
export interface ITurnState {
  items: TranscriptItem[];
  /** Null while the turn runs. */
  outcome: Outcome | null;
  error: ITurnError | null;
  cancelMessage: string | null;
  /** Problems noticed in the stream (bad frames, seq gaps, …): shown, never thrown. */
  diagnostics: string[];
  /*
   * The keys below come only from AG-UI producers; a chunk-wire turn never
   * has them, so they stay absent until the first such frame.
   */
  /** The agent's shared state as of the last `STATE_SNAPSHOT`/`STATE_DELTA`. */
  agentState?: unknown;
  /** What the agent is doing, in first-seen order, each at its latest content. */
  activities?: IActivity[];
  /** The subagent runs of this turn, in start order, at their latest status. */
  subagents?: ISubagentRun[];
  /** The tokens the turn's run used, when the producer reported them. */
  usage?: ITokenUsage;
  /**
   * The LangGraph checkpoint the thread was at before this turn's message
   * (null: the thread's first turn); absent when the producer keeps none
   * (docs/protocol.md §5.10).
   */
  startCheckpoint?: string | null;
  /** The checkpoint the thread ended this turn at, when reported. */
  endCheckpoint?: string;
}

/** What one applied frame changed, so a view can update only that. */
export type TurnChange =
  | { type: 'added'; item: TranscriptItem }
  | { type: 'updated'; item: TranscriptItem }
  | { type: 'ended'; outcome: Outcome }
  | { type: 'diagnostic'; message: string }
  | { type: 'state'; state: unknown }
  | { type: 'activity'; activity: IActivity }
  | { type: 'subagent'; subagent: ISubagentRun }
  | { type: 'usage'; usage: ITokenUsage };

/** The text the panel shows when a stream ends with no terminal frame. */
export const STREAM_ENDED_UNEXPECTEDLY = 'stream ended unexpectedly';

/** Stream notes kept per turn; later ones are only counted. */
export const MAX_DIAGNOSTICS = 100;
