/**
 * What the panel asks of a producer for one turn and how the answer comes
 * back: the shapes every transport and the model share. Pure data.
 */
import type { WireFrame } from './frame-types';
import { sendableImages } from './images';
import type { JsonObject } from './json';
import type { Decision, InterruptResponse } from './types';

/** What an attachment is; the agent is told in these words (docs/protocol.md §6.2). */
export type AttachmentKind =
  'error' | 'output' | 'image' | 'variables' | 'file' | 'notebook' | 'cell';

export const ATTACHMENT_KINDS: readonly AttachmentKind[] = [
  'error',
  'output',
  'image',
  'variables',
  'file',
  'notebook',
  'cell'
];

/** An image an AG-UI endpoint that accepts images gets as a content part. */
export interface IAttachedImage {
  mimeType: string;
  /** The bytes, base64 (as a notebook output holds them). */
  data: string;
}

/** One attached piece of context, as it travels (docs/protocol.md §6.2). */
export interface IContextAttachment {
  kind: AttachmentKind;
  /** Where it came from, in the user's words: "cell 3 of analysis.ipynb". */
  source: string;
  /** What the agent reads: capped at `ATTACHMENT_LIMIT` (src/context/attachments.ts; a placeholder for an image). */
  text: string;
  /** An image's bytes: over AG-UI, and to this server's built-in agent (docs/protocol.md §16.7). */
  image?: IAttachedImage;
}

/** Workspace context that accompanies a chat message (LangStage HTTP names). */
export interface ITurnContext {
  current_directory?: string;
  focused_widget?: string;
  selected_text?: string;
  selection_metadata?: string;
  /** Outputs, errors and more the user attached (docs/protocol.md §6.2). */
  attachments?: IContextAttachment[];
}

/** The context fields that hold one string (all but `attachments`). */
export type ContextTextField = Exclude<keyof ITurnContext, 'attachments'>;

/**
 * What an AG-UI run carries of the conversation (an endpoint's `history`
 * setting): `full`, every message (a conforming agent may keep nothing);
 * `latest`, only the run's new messages, for a server that keeps its own.
 */
export type HistoryMode = 'full' | 'latest';

/** A tool the panel offers the agent to call (AG-UI `Tool`, docs/protocol.md §8.11). */
export interface IOfferedTool {
  name: string;
  description: string;
  /** The JSON Schema of its arguments. */
  parameters: JsonObject;
}

/** A call of an offered tool that the producer left for the panel to run. */
export interface IClientToolCall {
  /** The producer's tool-call id. */
  id: string;
  name: string;
  /** The parsed arguments (`{"_raw": text}` when they were not JSON). */
  args: unknown;
}

/** What the panel's run of a client tool gave (a `role: "tool"` message). */
export interface IClientToolResult {
  callId: string;
  name: string;
  /** The result as text: a string as returned, anything else as JSON. */
  content: string;
  /** The tool failed (or was cancelled): `content` says why. */
  error: boolean;
}

/** One review a resume answers. */
export interface IReviewAnswer {
  /** The interrupt ids of its card, when the producer revealed them. */
  interruptIds: string[];
  /** How many of the resume's decisions are its own (its review rows). */
  rows: number;
  /** For an AG-UI 1.0 request card: its answer, instead of decisions. */
  response?: InterruptResponse;
}

/** What every request carries besides its kind. */
interface ITurnRequestBase {
  threadId: string;
  /**
   * What the transport asked to remember of this conversation after its
   * last turn (`ITurnSink.remember`), handed back unread by the model.
   * Absent when it never asked.
   */
  memory?: JsonObject;
  /** The client tools the panel offers on this run. */
  tools?: IOfferedTool[];
  /**
   * Results of client tools the agent has not been given yet, delivered
   * before anything else of this request.
   */
  toolResults?: IClientToolResult[];
  /**
   * The model the conversation chose (docs/protocol.md §16.3); absent: the
   * endpoint's default.
   */
  model?: string;
  /**
   * Where the thread goes back to before this run (docs/protocol.md §5.10):
   * the LangGraph checkpoint, or null for before its first turn. Absent: it
   * goes on from where it is. Only the chunk wire reads it.
   */
  fork?: { checkpointId: string | null };
}

/** What the panel asks a transport to run. */
export type TurnRequest =
  | (ITurnRequestBase & {
      kind: 'chat';
      message: string;
      context?: ITurnContext;
      /**
       * The AG-UI id of this message: its entry's key, or for an edit the id
       * of the message it edits (docs/protocol.md §8.8).
       */
      messageId?: string;
    })
  | (ITurnRequestBase & {
      kind: 'resume';
      decisions: Decision[];
      /**
       * The reviews these decisions answer, in order: each one's interrupt
       * ids (when the producer revealed them) and how many decisions it
       * takes. Lets AG-UI address each interrupt even after a page reload.
       */
      reviews?: IReviewAnswer[];
    })
  | (ITurnRequestBase & {
      /** Continue after the panel ran the client tools the agent called. */
      kind: 'tool_results';
      toolResults: IClientToolResult[];
    });

/**
 * Why a producer refused a request without running anything, when the model
 * acts on it. `nothing_pending`: a resume found no review waiting, so it was
 * answered elsewhere (another tab or window) and these decisions were not
 * applied. `stale_review`: another review waits than the one the resume
 * answered, so that one was answered elsewhere and replaced. `busy`: a turn
 * of another client (another tab or window) runs on the thread, and this
 * one did not start.
 */
export type TurnRefusal = 'nothing_pending' | 'stale_review' | 'busy';

/** The refusals a chunk-wire producer names by their `reason`. */
export function turnRefusal(reason: unknown): TurnRefusal | undefined {
  return reason === 'nothing_pending' ||
    reason === 'stale_review' ||
    reason === 'busy'
    ? reason
    : undefined;
}

/**
 * What a chunk-wire resume names as the reviews it answers
 * (docs/protocol.md §5.9): the interrupt ids of every one, when each one has
 * some; else nothing, and the producer checks the decisions alone.
 */
export function resumeAnswers(reviews: readonly IReviewAnswer[] | undefined): {
  interrupt_ids?: string[];
} {
  if (!reviews?.length || reviews.some(r => r.interruptIds.length === 0)) {
    return {};
  }
  return { interrupt_ids: reviews.flatMap(review => review.interruptIds) };
}

/** What a chunk-wire request says of where its thread forks (docs/protocol.md §5.10). */
export function forkKeys(fork: TurnRequest['fork']): {
  checkpoint_id?: string | null;
} {
  return fork ? { checkpoint_id: fork.checkpointId } : {};
}

/**
 * An attachment as the chunk wire carries it; an image's bytes only to this
 * server's built-in agent (docs/protocol.md §16.7). Type aliases, not
 * interfaces, so that it is JSON for the comm's messages.
 */
type WireText = { kind: string; source: string; text: string };
export type WireAttachment =
  WireText | (WireText & { image: { mime_type: string; data: string } });

/**
 * The context fields as the chunk wire and the comm carry them
 * (docs/protocol.md §6.2): the strings, and the attachments. Image bytes go
 * only where `withImages` says (this Jupyter server's routes, docs/protocol.md §16.7), capped;
 * the placeholder text says what there was either way.
 */
export function chunkWireContext(
  context: ITurnContext | undefined,
  withImages = false
): { [key: string]: string | WireAttachment[] } {
  const fields: ReturnType<typeof chunkWireContext> = {};
  for (const [key, value] of Object.entries(context ?? {})) {
    if (typeof value === 'string') {
      fields[key] = value;
    }
  }
  const attachments = context?.attachments ?? [];
  const sent = new Set(
    withImages
      ? sendableImages(attachments.flatMap(a => (a.image ? [a.image] : [])))
      : []
  );
  if (attachments.length > 0) {
    fields.attachments = attachments.map(({ kind, source, text, image }) =>
      image && sent.has(image)
        ? {
            kind,
            source,
            text,
            image: { mime_type: image.mimeType, data: image.data }
          }
        : { kind, source, text }
    );
  }
  return fields;
}

/**
 * Where a transport delivers a turn. Transports parse at the edge: only
 * typed frames reach `frame` (bytes from outside through `decodeFrame`, AG-UI
 * through its mapper); what could not be read goes to `diagnostic`.
 */
export interface ITurnSink {
  frame(frame: WireFrame): void;
  diagnostic(message: string): void;
  /**
   * What the transport needs back on the conversation's next request
   * (`TurnRequest.memory`): plain JSON the model saves with the
   * conversation and never reads. Transports that keep the thread on the
   * client (AG-UI) call it, and the kernel comm (which kernel holds the
   * thread, for `IAgentTransport.threadMemory`), before `end`.
   */
  remember?(memory: JsonObject): void;
  /**
   * Calls of offered client tools the producer ended its run without
   * answering, reported before `end`: the model runs them and continues
   * with a `tool_results` request.
   */
  clientToolCalls?(calls: IClientToolCall[]): void;
  /**
   * The stream is over: `reason` is set when the transport itself failed
   * (HTTP status, network, kernel died) and names the endpoint and cause.
   * With no reason and no terminal frame seen, the EOF rule applies.
   * `refusal` says why the producer refused the request, when the model
   * acts on it (`TurnRefusal`: the review was answered elsewhere).
   */
  end(reason?: string, refusal?: TurnRefusal): void;
}

export interface ITurnHandle {
  /** Ask the producer to stop (cancel route / comm message / abort). */
  stop(): void;
  /** Settles once `sink.end` has been called. */
  readonly done: Promise<void>;
}
