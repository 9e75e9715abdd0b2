/**
 * One notebook tool call from start to result, the same on every transport
 * (docs/protocol.md §12.3): arguments checked, a read answered at once
 * (unless reads are reviewed too), a change prepared, reviewed as a diff
 * (unless "always allow" is on for its tool in this conversation), then
 * applied. Every outcome, the user's rejection and Stop included, is a
 * result for the agent, never an exception.
 */
import type { INotebookToolCall } from '../../contracts/notebook-tools';
import { toolError, toolRejected } from '../../contracts/notebook-tools';
import type {
  IChangeProposal,
  IChangeReviews
} from '../../model/conversation/change-reviews';
import { errorMessage, type JsonObject } from '../../wire/json';
import { checkArguments } from './arguments';
import { ToolFailure } from './tool-failure';
import {
  type IPreparedChange,
  isPrepared,
  type NotebookTools
} from './notebook-tools';

export interface INotebookToolRunnerOptions {
  tools: NotebookTools;
  reviews: IChangeReviews;
  /** Whether read tools wait for a review too (a setting). */
  reviewReads(): boolean;
  /** The conversation the changes are recorded as coming from. */
  threadId(): string;
  /**
   * Resolves when the notebooks to act on are there: after a reload, a
   * review left pending is taken up before the workspace reopened them.
   */
  ready?(): Promise<void>;
}

export class NotebookToolRunner {
  constructor(private readonly _options: INotebookToolRunnerOptions) {}

  /**
   * `schemaChecked`: the call is an AG-UI client tool call, whose arguments
   * the client-tool registry checked against the tool's schema already.
   */
  async run(
    call: INotebookToolCall,
    signal: AbortSignal,
    { schemaChecked = false } = {}
  ): Promise<JsonObject> {
    try {
      if (this._options.ready) {
        await this._options.ready();
      }
      // Stopped, or its conversation moved on, while it waited: what "always
      // allow" says now is another conversation's, so nothing may apply.
      if (signal.aborted) {
        return stopped(call.name);
      }
      return await this._run(call, signal, schemaChecked);
    } catch (error) {
      return error instanceof ToolFailure
        ? error.result
        : toolError('failed', errorMessage(error));
    }
  }

  private async _run(
    call: INotebookToolCall,
    signal: AbortSignal,
    schemaChecked: boolean
  ): Promise<JsonObject> {
    const { tools, reviews } = this._options;
    const checked = checkArguments(call.name, call.args, schemaChecked);
    if (!checked.ok) {
      return checked.result;
    }
    const { tool, args } = checked;
    let change: IPreparedChange | JsonObject;
    if (!tool.mutates) {
      if (!this._options.reviewReads()) {
        return tools.read(tool.name, args);
      }
      change = {
        proposal: readProposal(tool.name, args),
        applyChange: async () => tools.read(tool.name, args)
      };
    } else {
      change = tools.prepare(tool.name, args, {
        threadId: this._options.threadId(),
        callId: call.callId
      });
    }
    if (!isPrepared(change)) {
      return change;
    }
    if (reviews.isAlwaysAllowed(tool.name)) {
      return change.applyChange(null, signal);
    }
    const outcome = await reviews.ask(change.proposal, signal);
    switch (outcome.verdict) {
      case 'apply':
        return change.applyChange(outcome.editedSource, signal);
      case 'reject':
        return toolRejected(outcome.reason);
      default:
        return stopped(tool.name);
    }
  }
}

function stopped(tool: string): JsonObject {
  return toolError('cancelled', `The user stopped ${tool} before it ran.`);
}

/** What a read would read, for the setting that reviews reads too. */
function readProposal(name: string, args: JsonObject): IChangeProposal {
  const where =
    typeof args.path === 'string' ? args.path : 'the active notebook';
  return {
    tool: name,
    kind: 'read',
    path: where,
    cellId: typeof args.cell_id === 'string' ? args.cell_id : null,
    index: typeof args.index === 'number' ? args.index : -1,
    cellType: '',
    mimeType: 'text/plain',
    current: '',
    proposed: '',
    description:
      name === 'list_notebooks'
        ? 'List the open notebooks'
        : name === 'get_active_cell'
          ? 'Read which cell is active'
          : `Read ${name === 'read_cell' ? 'a cell' : 'the cells'} of ${where}`
  };
}
