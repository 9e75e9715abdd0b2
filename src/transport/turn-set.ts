import type { IDisposable } from '@lumino/disposable';
import type { ITurnHandle, ITurnSink, TurnRequest } from '../wire/turn';

/** The requests of the chunk wire: it has no client tools (docs/protocol.md §8.11). */
export type ChunkWireRequest = Exclude<TurnRequest, { kind: 'tool_results' }>;

/** A turn the transport cannot run: it ends at once, failing with `reason`. */
export function refusedTurn(sink: ITurnSink, reason: string): ITurnHandle {
  return {
    stop: () => undefined,
    done: Promise.resolve().then(() => sink.end(reason))
  };
}

/** A turn a transport can end at once, with no terminal frame. */
export interface IAbortableTurn extends ITurnHandle {
  abort(): void;
}

/** The turns a transport has running: each leaves once done. */
export class TurnSet<T extends IAbortableTurn> implements IDisposable {
  get isDisposed(): boolean {
    return this._isDisposed;
  }

  add(turn: T): T {
    this._turns.add(turn);
    void turn.done.then(() => this._turns.delete(turn));
    return turn;
  }

  /** Abort the turns still running. */
  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    for (const turn of this._turns) {
      turn.abort();
    }
    this._turns.clear();
  }

  private readonly _turns = new Set<T>();
  private _isDisposed = false;
}
