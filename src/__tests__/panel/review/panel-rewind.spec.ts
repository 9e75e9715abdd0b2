/**
 * The rewind card (docs/protocol.md §12.11): each cell's diff and checkbox
 * (a conflict unchecked, a deleted cell reported), Apply with the cells
 * checked, Keep, the outcome in words; and the turn footer's "Restore
 * notebook to before this turn".
 */
import type { INotebookRewinder } from '../../../contracts/extension-points';
import type {
  INotebookChange,
  IRewindCell,
  IRewindPlan
} from '../../../contracts/notebook-changes';
import type { ITurnEntry } from '../../../model/conversation/chat/chat-entries';
import { NotebookRewinds } from '../../../model/conversation/rewinds';
import { RewindView } from '../../../panel/review/rewind-card';
import { TurnFooter } from '../../../panel/transcript/turn-footer';
import { TurnReducer } from '../../../wire/reduce';
import { click } from '../../support/panel-fakes';
import { panelStrings } from '../../../contracts/translation';

const trans = panelStrings();

function cell(
  cellId: string,
  status: IRewindCell['status'],
  action: IRewindCell['action']
): IRewindCell {
  return {
    key: `a.ipynb\n${cellId}`,
    path: 'dir/a.ipynb',
    cellId,
    cellType: 'code',
    mimeType: 'text/x-ipython',
    index: 0,
    action,
    status,
    current: action === 'reinsert' ? '' : 'x = 2',
    target: action === 'remove' ? '' : 'x = 1'
  };
}

const PLAN: IRewindPlan = {
  cells: [
    cell('c1', 'ready', 'restore'),
    cell('c2', 'conflict', 'remove'),
    cell('c3', 'deleted', null)
  ]
};

const CHANGE: INotebookChange = {
  kind: 'edit',
  path: 'dir/a.ipynb',
  cellId: 'c1',
  cellType: 'code',
  before: 'x = 1',
  after: 'x = 2',
  index: 0,
  callId: null
};

function turn(changes: INotebookChange[] = [CHANGE]): ITurnEntry {
  return {
    kind: 'turn',
    key: 'turn-1',
    request: null,
    state: new TurnReducer().state,
    startedAt: 0,
    endedAt: 1,
    notebookChanges: changes
  };
}

async function shown() {
  const applied: string[][] = [];
  const rewinder: INotebookRewinder = {
    plan: async () => PLAN,
    apply: async (_, __, selected) => {
      applied.push([...selected]);
      return {
        restored: [...selected],
        skipped: [],
        notebooks: ['dir/a.ipynb']
      };
    }
  };
  const rewinds = new NotebookRewinds(() => null as never, trans);
  rewinds.registerRewinder(rewinder);
  const view = new RewindView(rewinds, trans);
  await rewinds.rewind([turn()]);
  const rows = [
    ...view.node.querySelectorAll<HTMLElement>('.jp-AgentPanel-rewindCell')
  ];
  const boxes = rows.map(row =>
    row.querySelector<HTMLInputElement>('.jp-AgentPanel-rewindCheck')!
  );
  const outcome = () =>
    view.node.querySelector('.jp-AgentPanel-rewindOutcome')!.textContent;
  return { rewinds, view, rows, boxes, applied, outcome };
}

describe('the rewind card', () => {
  it('shows each cell with its diff; a conflict unchecked, a deleted cell reported', async () => {
    const { view, rows, boxes } = await shown();
    expect(view.node.hidden).toBe(false);
    expect(rows.map(row => row.dataset.status)).toEqual([
      'ready',
      'conflict',
      'deleted'
    ]);
    expect(boxes.map(box => [box.checked, box.disabled])).toEqual([
      [true, false],
      [false, false],
      [false, true]
    ]);
    expect(rows[0].textContent).toContain(
      'a.ipynb, cell 1: restore its source from before'
    );
    expect(
      [...rows[0].querySelectorAll('.jp-AgentPanel-diffLine')].map(
        line => line.textContent
      )
    ).toEqual(['−x = 2', '+x = 1']);
    expect(rows[1].textContent).toContain('You changed this cell');
    expect(rows[2].textContent).toContain('You deleted this cell');
    expect(rows[2].querySelector('.jp-AgentPanel-lineDiff')).toBeNull();
    view.dispose();
  });

  it('applies the cells checked and says what happened', async () => {
    const { view, boxes, applied, outcome } = await shown();
    click(view.node.querySelector('.jp-AgentPanel-rewindApply'));
    await Promise.resolve();
    await Promise.resolve();
    expect(applied).toEqual([['a.ipynb\nc1']]);
    expect(outcome()).toBe(
      'Restored 1 cell: Undo Cell Operation (Z) in the notebook takes it back. 2 cells were left as they are.'
    );
    expect(boxes.every(box => box.disabled)).toBe(true);
    expect(view.node.querySelector('.jp-AgentPanel-rewindApply')).toBeNull();
    click(view.node.querySelector('.jp-AgentPanel-rewindClose'));
    expect(view.node.hidden).toBe(true);
    view.dispose();
  });

  it('applies a conflict the user checks; Keep changes nothing', async () => {
    const first = await shown();
    first.boxes[1].checked = true;
    click(first.view.node.querySelector('.jp-AgentPanel-rewindApply'));
    await Promise.resolve();
    expect(first.applied).toEqual([['a.ipynb\nc1', 'a.ipynb\nc2']]);
    first.view.dispose();
    const second = await shown();
    click(second.view.node.querySelector('.jp-AgentPanel-rewindKeep'));
    expect(second.applied).toEqual([]);
    expect(second.outcome()).toBe(
      'Kept the notebook as it is: nothing was changed.'
    );
    second.view.dispose();
  });
});

describe('the turn footer', () => {
  it('offers "Restore notebook to before this turn" only on a turn that changed a notebook', () => {
    const asked: string[] = [];
    const footer = new TurnFooter(
      trans,
      () => undefined,
      key => asked.push(key)
    );
    footer.render(turn([]), true);
    expect(footer.node.querySelector('.jp-AgentPanel-rewindTurn')).toBeNull();
    footer.render(turn(), true);
    const button = footer.node.querySelector('.jp-AgentPanel-rewindTurn');
    expect(button?.textContent).toBe('Restore notebook to before this turn');
    click(button);
    expect(asked).toEqual(['turn-1']);
    footer.dispose();
  });
});
