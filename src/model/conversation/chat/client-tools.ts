/**
 * Client tools: tools that run in JupyterLab, offered to the agent with
 * every run (AG-UI `RunAgentInput.tools`, docs/protocol.md §8.11). Other
 * plugins register them through `IAgentPanel.registerClientTool`; the
 * conversation runs the calls the agent leaves for the panel and continues
 * the run with their results.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import { errorMessage, type JsonObject } from '../../../wire/json';
import { validateJson } from '../../../wire/json-schema';
import type {
  IClientToolCall,
  IClientToolResult,
  IOfferedTool
} from '../../../wire/turn';
import { translated } from '../../../contracts/problems';
import { applyLocalEvent } from '../../../wire/local-events';
import type { IToolCard, ITurnState } from '../../../wire/types';
import { panelStrings } from '../../../contracts/translation';

/** What a tool's `run` gets besides its arguments. */
export interface IClientToolContext {
  /** The agent's id for this call. */
  readonly callId: string;
  /**
   * Aborted when the user presses Stop (or the conversation moves on): a
   * tool should stop its work then; its result is no longer awaited.
   */
  readonly signal: AbortSignal;
}

/** A tool the agent may call, run in the browser. */
export interface IClientTool {
  /** Unique among the registered tools; what the agent calls it by. */
  readonly name: string;
  /** What it does, for the agent. */
  readonly description: string;
  /** The JSON Schema of its arguments (an object schema). */
  readonly parameters: JsonObject;
  /**
   * Do the work. Arguments are checked against `parameters` first. The
   * result goes to the agent: a string as it is, anything else as JSON. A
   * thrown error goes to the agent as a failed result.
   */
  run(args: unknown, context: IClientToolContext): Promise<unknown>;
}

/** The client tools registered by plugins, in registration order. */
export class ClientToolRegistry {
  constructor(trans?: TranslationBundle) {
    this._trans = trans ?? panelStrings();
  }

  /** Offer `tool` on every run until the returned disposable is disposed. */
  register(tool: IClientTool): IDisposable {
    if (this._tools.has(tool.name)) {
      throw new Error(
        this._trans.__(
          'A client tool named "%1" is already registered.',
          tool.name
        )
      );
    }
    this._tools.set(tool.name, tool);
    return new DisposableDelegate(() => {
      if (this._tools.get(tool.name) === tool) {
        this._tools.delete(tool.name);
      }
    });
  }

  get(name: string): IClientTool | undefined {
    return this._tools.get(name);
  }

  /** What a run offers the agent. */
  offered(): IOfferedTool[] {
    return [...this._tools.values()].map(tool => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters
    }));
  }

  /**
   * Run one call: arguments checked against the tool's schema, failures
   * and Stop (`signal`) turned into error results, so a call always ends.
   */
  async run(
    call: IClientToolCall,
    signal: AbortSignal
  ): Promise<IClientToolResult> {
    const trans = this._trans;
    const failed = (content: string): IClientToolResult => ({
      callId: call.id,
      name: call.name,
      content,
      error: true
    });
    const tool = this._tools.get(call.name);
    if (!tool) {
      return failed(
        trans.__('No client tool named "%1" is available.', call.name)
      );
    }
    const problems = validateJson(call.args, tool.parameters);
    if (problems.length > 0) {
      return failed(
        trans.__(
          'The arguments do not match the schema of "%1": %2',
          call.name,
          problems.map(found => translated(found, trans)).join('; ')
        )
      );
    }
    if (signal.aborted) {
      return failed(trans.__('Cancelled by the user.'));
    }
    let onAbort = (): void => undefined;
    const stopped = new Promise<IClientToolResult>(resolve => {
      onAbort = () => resolve(failed(trans.__('Cancelled by the user.')));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      // A tool that ignores its signal is not waited for after Stop.
      return await Promise.race([this._call(tool, call, signal), stopped]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async _call(
    tool: IClientTool,
    call: IClientToolCall,
    signal: AbortSignal
  ): Promise<IClientToolResult> {
    try {
      const value = await tool.run(call.args, { callId: call.id, signal });
      return {
        callId: call.id,
        name: call.name,
        content:
          typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
        error: false
      };
    } catch (error) {
      return {
        callId: call.id,
        name: call.name,
        content: errorMessage(error),
        error: true
      };
    }
  }

  private readonly _trans: TranslationBundle;
  private readonly _tools = new Map<string, IClientTool>();
}

/** A client tool's result the agent has not been given, and its card. */
export interface IOwedResult<E> {
  /** The turn the card belongs to. */
  readonly entry: E;
  readonly card: IToolCard;
  readonly result: IClientToolResult;
}

/**
 * Results of client tools the agent has not been given: run here, but no run
 * that carried them has finished yet.
 */
export function owedResults<E extends { state: ITurnState }>(
  turns: readonly E[]
): IOwedResult<E>[] {
  return turns.flatMap(entry =>
    clientCards(entry.state)
      .filter(card => card.status !== 'pending')
      .map(card => ({
        entry,
        card,
        result: {
          callId: card.callId!,
          name: card.name,
          content: String(card.result ?? ''),
          error: card.status === 'error'
        }
      }))
  );
}

/** Client tools still running in `state` failed: the page went away (`why`). */
export function failInterruptedTools(state: ITurnState, why: string): void {
  for (const card of clientCards(state)) {
    if (card.status === 'pending') {
      applyLocalEvent(state, {
        type: 'client_tool_finished',
        card,
        result: {
          callId: card.callId!,
          name: card.name,
          content: why,
          error: true
        },
        durationMs: null
      });
    }
  }
}

/** The cards of client tools whose results the agent has not been given. */
function clientCards(state: ITurnState): IToolCard[] {
  return state.items.filter(
    (item): item is IToolCard =>
      item.kind === 'tool' &&
      item.clientTool?.delivered === false &&
      item.callId !== null
  );
}
