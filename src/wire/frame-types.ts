/**
 * The frames the panel reads (docs/protocol.md §2): contract B's shapes,
 * every B key optional, `null` = missing, plus the panel-internal frames of
 * the AG-UI adapter: `state`, `activity`, `subagent`, `usage`
 * (docs/protocol.md §2.7).
 */
import type { JsonObject } from './json';
import type { ISubagentTag, SubagentStatus } from './types';

/** One element of a `tool_calls` payload. */
export interface IWireToolCall {
  /** Null when the producer gave none (the reducer shows "tool"). */
  name: string | null;
  args: unknown;
  id: string | null;
  /** What the tool does, in words, when the server says (docs/protocol.md §16.5). */
  title?: string;
}

/** A `tool_result` payload with its contract-B sibling keys. */
export interface IWireToolResult {
  /** The result as received (a string in practice). */
  content: unknown;
  id: string | null;
  name: string | null;
  /** `success` / `error`, or whatever unrecognised value was sent. */
  tool_status: string | null;
  duration_ms: number | null;
}

export interface IWireExtraction {
  tool_name: string | null;
  extracted_type: string | null;
  data: unknown;
}

/** The normalised interrupt payload as produced by core (docs/protocol.md §2.3, §5.2). */
export interface IWireInterrupt {
  action_requests: unknown[];
  review_configs: unknown[];
  /** Raw verbs as sent; `null` when the key was missing. */
  allowed_decisions: string[] | null;
}

export interface IStreamingFrame {
  status: 'streaming';
  chunk: string | null;
  node: string | null;
  message_id: string | null;
  reasoning: string | null;
  tool_calls: IWireToolCall[] | null;
  tool_result: IWireToolResult | null;
  extraction: IWireExtraction | null;
  /** Payload keys that were present but malformed, each with the reason. */
  problems: string[];
  /** The subagent that produced the payload (AG-UI only). */
  subagent?: ISubagentTag;
}

/**
 * What an AG-UI 1.0 interrupt asks for, when it is not a LangGraph review
 * (docs/protocol.md §8.9): answered with a payload, not with decisions.
 */
export interface IWireInterruptRequest {
  reason: string;
  message: string | null;
  /** The JSON Schema the answer must match; null: any answer. */
  response_schema: JsonObject | null;
  /** When it stops being answerable (ISO 8601 as sent); null: never. */
  expires_at: string | null;
  /** The tool call it is about, for a tool approval. */
  tool_call_id: string | null;
}

export interface IInterruptFrame {
  status: 'interrupt';
  interrupt: IWireInterrupt;
  /** The producer's interrupt ids, when it revealed them (AG-UI only). */
  interrupt_ids?: string[];
  /** An AG-UI 1.0 interrupt that asks for a payload (AG-UI only). */
  request?: IWireInterruptRequest;
}

/** The tokens a run used, summed over its models (AG-UI only). */
export interface IUsageFrame {
  status: 'usage';
  input_tokens: number | null;
  output_tokens: number | null;
}

/** The agent's whole shared state after a snapshot or a patch (AG-UI only). */
export interface IStateFrame {
  status: 'state';
  state: unknown;
}

/** An activity at its latest content (AG-UI only). */
export interface IActivityFrame {
  status: 'activity';
  id: string;
  activity_type: string;
  content: unknown;
  subagent?: ISubagentTag;
}

/** A subagent run started, finished, paused or failed (AG-UI only). */
export interface ISubagentFrame {
  status: 'subagent';
  id: string;
  name: string | null;
  description: string | null;
  parent_id: string | null;
  subagent_status: SubagentStatus;
  message: string | null;
}

export interface ICompleteFrame {
  status: 'complete';
  outcome: 'complete' | 'interrupted' | null;
}

export interface IErrorFrame {
  status: 'error';
  error: string;
  traceback: string | null;
}

export interface ICancelledFrame {
  status: 'cancelled';
  message: string | null;
}

/** A well-formed frame the panel has no use for (forward compatibility). */
export interface IIgnoredFrame {
  status: 'ignored';
  /** Why, e.g. `unknown status "heartbeat"`. */
  reason: string;
}

export type WireFrame = (
  | IStreamingFrame
  | IInterruptFrame
  | ICompleteFrame
  | IErrorFrame
  | ICancelledFrame
  | IStateFrame
  | IActivityFrame
  | ISubagentFrame
  | IUsageFrame
  | IIgnoredFrame
) &
  ICheckpointKeys;

/**
 * Where a turn stands among its thread's LangGraph checkpoints, as this
 * project's server and kernel helper report it (docs/protocol.md §5.10).
 */
export interface ICheckpointKeys {
  /** On a message turn's first frame: the checkpoint before it (null: none). */
  checkpoint_id?: string | null;
  /** On a turn's terminal frame: the checkpoint the thread ended at. */
  end_checkpoint_id?: string;
}
