import type { TranslationBundle } from '@jupyterlab/translation';
import type { IActivity, ISubagentRun, ITurnState } from '../../wire/types';
import { capLongStrings, prettyJson, previewOf } from '../common/format';

/** Longest one-line summary of an activity's content. */
const SUMMARY_LIMIT = 160;
/** Longest string shown inside the agent-state viewer. */
const STATE_STRING_LIMIT = 500;

/**
 * What an AG-UI agent reports besides its answer: the subagents it ran,
 * what it is doing (activities) and its shared state. Redrawn only when one
 * of those changes, never per text delta; hidden when the turn has none
 * (chunk-wire producers never send them).
 */
export class TurnActivityView {
  constructor(private readonly _trans: TranslationBundle) {
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-turnActivity';
    this.node.hidden = true;
  }

  readonly node: HTMLDivElement;

  render(state: ITurnState): void {
    // Keep the state viewer open across updates if the user opened it.
    const stateOpen =
      this.node.querySelector('details')?.hasAttribute('open') ?? false;
    const sections = [
      this._subagents(state.subagents ?? []),
      this._activities(state.activities ?? []),
      this._agentState(state.agentState, stateOpen)
    ].filter((section): section is HTMLElement => section !== null);
    this.node.replaceChildren(...sections);
    this.node.hidden = sections.length === 0;
  }

  private _subagents(runs: ISubagentRun[]): HTMLElement | null {
    if (runs.length === 0) {
      return null;
    }
    const trans = this._trans;
    const labels: Record<ISubagentRun['status'], string> = {
      running: trans.__('running'),
      finished: trans.__('finished'),
      suspended: trans.__('waiting for review'),
      error: trans.__('failed')
    };
    return section(
      'jp-AgentPanel-subagents',
      trans.__('Subagents'),
      runs.map(run => {
        const text = `${run.name ?? run.id} · ${labels[run.status]}`;
        const row = line(run.message ? `${text} — ${run.message}` : text);
        row.dataset.status = run.status;
        if (run.description) {
          row.title = run.description;
        }
        return row;
      })
    );
  }

  private _activities(activities: IActivity[]): HTMLElement | null {
    if (activities.length === 0) {
      return null;
    }
    return section(
      'jp-AgentPanel-activities',
      this._trans.__('What the agent is doing'),
      activities.map(activity => {
        const content = JSON.stringify(activity.content) ?? '';
        const via = activity.subagent
          ? ` (${activity.subagent.name ?? activity.subagent.id})`
          : '';
        return line(
          `${activity.activityType}${via}: ${previewOf(content, SUMMARY_LIMIT) ?? content}`
        );
      })
    );
  }

  private _agentState(agentState: unknown, open: boolean): HTMLElement | null {
    if (agentState === undefined) {
      return null;
    }
    const details = document.createElement('details');
    details.className = 'jp-AgentPanel-agentState';
    details.open = open;
    const summary = document.createElement('summary');
    summary.textContent = this._trans.__('Agent state');
    const body = document.createElement('pre');
    body.textContent = prettyJson(
      capLongStrings(agentState, STATE_STRING_LIMIT).value
    );
    details.append(summary, body);
    return details;
  }
}

function section(
  className: string,
  title: string,
  rows: HTMLElement[]
): HTMLElement {
  const node = document.createElement('div');
  node.className = className;
  const heading = document.createElement('div');
  heading.className = 'jp-AgentPanel-turnActivityTitle';
  heading.textContent = title;
  node.append(heading, ...rows);
  return node;
}

function line(text: string): HTMLDivElement {
  const node = document.createElement('div');
  node.className = 'jp-AgentPanel-turnActivityLine';
  node.textContent = text;
  return node;
}
