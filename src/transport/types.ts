import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';
import type { WireFrame } from '../wire/frames';
import type { Decision } from '../wire/types';

/** Workspace context that accompanies a chat message (LangStage HTTP names). */
export interface ITurnContext {
  current_directory?: string;
  focused_widget?: string;
  selected_text?: string;
  selection_metadata?: string;
}

/** What the panel asks a transport to run. */
export type TurnRequest =
  | {
      kind: 'chat';
      threadId: string;
      message: string;
      context?: ITurnContext;
    }
  | {
      kind: 'resume';
      threadId: string;
      decisions: Decision[];
      /**
       * The reviews these decisions answer, in order: each one's interrupt
       * ids (when the producer revealed them) and how many decisions it
       * takes. Lets AG-UI address each interrupt even after a page reload.
       */
      reviews?: { interruptIds: string[]; rows: number }[];
    };

/**
 * Why a producer refused a request without running anything, when the model
 * acts on it. `nothing_pending`: a resume found no review waiting, so it was
 * answered elsewhere (another tab or window) and these decisions were not
 * applied.
 */
export type TurnRefusal = 'nothing_pending';

/**
 * Where a transport delivers a turn. Transports parse at the edge: only
 * validated frames reach `frame`; what could not be read goes to `diagnostic`.
 */
export interface ITurnSink {
  frame(frame: WireFrame): void;
  diagnostic(message: string): void;
  /**
   * The stream is over: `reason` is set when the transport itself failed
   * (HTTP status, network, kernel died) and names the endpoint and cause.
   * With no reason and no terminal frame seen, the EOF rule applies.
   * `refusal` says why the producer refused the request, when the model
   * acts on it (`nothing_pending`: a resume found no review waiting).
   */
  end(reason?: string, refusal?: TurnRefusal): void;
}

export interface ITurnHandle {
  /** Ask the producer to stop (cancel route / comm message / abort). */
  stop(): void;
  /** Settles once `sink.end` has been called. */
  readonly done: Promise<void>;
}

export type HealthState = 'healthy' | 'needs_setup' | 'unreachable';

export interface IHealthReport {
  state: HealthState;
  /** A sentence for the user: why it is not healthy, or the agent's name. */
  message: string;
  agentName: string | null;
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
   * returns the sink to deliver it to, or null to let it pass. Only
   * transports that can see other clients' runs (the AG-UI websocket)
   * provide it.
   */
  followThread?(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null
  ): IDisposable;
}

/** `fetch` as transports use it, injectable for tests. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
