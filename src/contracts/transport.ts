/**
 * The interface every transport implements and the model consumes: plugins
 * register factories of it, the model never sees a concrete transport.
 */
import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';
import type { JsonObject } from '../wire/json';
import type { IModelOffer } from './models';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../wire/turn';

export type HealthState = 'healthy' | 'needs_setup' | 'unreachable';

export interface IHealthReport {
  state: HealthState;
  /** A sentence for the user: why it is not healthy, or the agent's name. */
  message: string;
  agentName: string | null;
  /**
   * Whether the endpoint lets a conversation choose its model, when its
   * health answer says (docs/protocol.md §16.3); absent when it says nothing.
   */
  modelChoice?: boolean;
  /** Its default model then (null: the keyless demo). */
  defaultModel?: string | null;
  /**
   * What the agent suggests asking it first, when it says
   * (docs/protocol.md §6.1): at most 5 short, non-blank strings; absent
   * when it suggests none.
   */
  prompts?: readonly string[];
}

/** A run on a followed thread that this panel did not start. */
export interface IForeignRun {
  runId: string;
  /** Ask the producer to stop it (any client of the thread may). */
  stop(): void;
}

/** One way of talking to an agent: HTTP chunk wire, kernel comm, AG-UI. */
export interface IAgentTransport extends IDisposable {
  /** Short label for the header: the URL, or the notebook and kernel. */
  readonly label: string;
  /** Emitted when `label` changes (e.g. the comm follows another notebook). */
  readonly labelChanged?: ISignal<IAgentTransport, void>;
  startTurn(request: TurnRequest, sink: ITurnSink): ITurnHandle;
  checkHealth(): Promise<IHealthReport>;
  /**
   * Watch `threadId` for runs other clients start (another tab, or a run
   * still going after a reload): `onRun` gets each from its first event and
   * returns the sink to deliver it to, or null to let it pass; `memory`
   * gives the conversation's transport memory such a run continues from.
   * Only transports that can see other clients' runs (the AG-UI websocket,
   * and the chunk wire's `join` for a deployment's runs) provide it.
   * `onBusy`: a run of another client goes on that this transport cannot
   * show (a local graph's turn another tab streams): the model follows the
   * conversation's store instead.
   */
  followThread?(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null,
    memory?: () => JsonObject | undefined,
    onBusy?: () => void
  ): IDisposable;
  /**
   * Whether the agent still remembers `thread`: false when it forgot it
   * (the kernel restarted since its last turn), null when it cannot tell.
   * Only transports whose agent's memory can be lost without the server
   * telling (the kernel comm) provide it.
   */
  threadMemory?(thread: IThreadRef): Promise<boolean | null>;
  /**
   * The models a conversation may choose (`TurnRequest.model`); an endpoint
   * without the route offers none (`NO_MODEL_CHOICE`). Throws when the
   * endpoint cannot be asked or its answer cannot be read. Only transports
   * whose endpoints may offer models (the chunk wire) provide it.
   */
  listModels?(): Promise<IModelOffer>;
  /**
   * Why this endpoint's conversations cannot go back to an earlier message
   * (an AG-UI server that keeps the history itself); absent or null: they
   * can, when the agent's checkpoints allow (docs/protocol.md §5.10).
   */
  readonly forkRefusal?: string | null;
  /**
   * The memory of a run that goes back to before message `messageId` (the
   * AG-UI history the client holds, cut there); null when the memory does
   * not hold that message. Only transports whose memory holds the
   * conversation itself (AG-UI) provide it.
   */
  memoryBefore?(
    memory: JsonObject | null,
    messageId: string
  ): JsonObject | null;
  /**
   * Why an answer cannot be generated again from its unchanged message,
   * when the endpoint cannot (AG-UI: docs/protocol.md §8.8); absent or null:
   * as `forkRefusal`.
   */
  readonly regenerateRefusal?: string | null;
}

/** A conversation's thread, as a transport checks its memory. */
export interface IThreadRef {
  readonly threadId: string;
  /** What the transport asked to remember of it (`ITurnSink.remember`). */
  readonly memory: JsonObject | null;
  /** When its last turn ended (ms since the epoch). */
  readonly lastTurnAt: number;
}
