/**
 * The review of a notebook change: the line diff, and the card's Apply,
 * Edit and Reject giving the outcome the tool returns to the agent.
 */
import {
  ChangeReviews,
  type IChangeProposal,
  type ReviewOutcome
} from '../../../model/conversation/change-reviews';
import { ChangeReviewsView } from '../../../panel/review/change-review-view';
import { lineDiff, renderDiff } from '../../../panel/review/line-diff';
import { panelStrings } from '../../../contracts/translation';

const trans = panelStrings();

describe('lineDiff', () => {
  it('marks removed and added lines, keeping the others', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' }
    ]);
  });

  it('shows a new cell as added lines and a deletion as removed ones', () => {
    expect(lineDiff('', "print('hello')")).toEqual([
      { kind: 'added', text: "print('hello')" }
    ]);
    expect(lineDiff('x = 1\ny = 2', '')).toEqual([
      { kind: 'removed', text: 'x = 1' },
      { kind: 'removed', text: 'y = 2' }
    ]);
    expect(lineDiff('', '')).toEqual([]);
  });

  it('renders one row per line with its mark, as text (never HTML)', () => {
    const node = renderDiff(lineDiff('<b>old</b>', '<img src=x onerror=1>'));
    const rows = [...node.querySelectorAll('.jp-AgentPanel-diffLine')];
    expect(rows.map(row => (row as HTMLElement).dataset.kind)).toEqual([
      'removed',
      'added'
    ]);
    expect(rows.map(row => row.textContent)).toEqual([
      '−<b>old</b>',
      '+<img src=x onerror=1>'
    ]);
    expect(node.querySelector('img, b')).toBeNull();
  });
});

describe('ChangeReviewsView', () => {
  const edit: IChangeProposal = {
    tool: 'edit_cell',
    kind: 'edit',
    path: 'analysis.ipynb',
    cellId: 'c-2',
    index: 1,
    cellType: 'code',
    mimeType: 'text/x-ipython',
    current: 'prnt("hi")',
    proposed: 'print("hi")',
    description: 'Replace the source of cell 1 of analysis.ipynb'
  };

  function setUp(proposal: IChangeProposal = edit) {
    const reviews = new ChangeReviews(() => 'thread');
    const view = new ChangeReviewsView(reviews, trans);
    const outcome = reviews.ask(proposal, new AbortController().signal);
    const card = () =>
      view.node.querySelector<HTMLElement>('.jp-AgentPanel-changeReview');
    const click = (selector: string) =>
      view.node.querySelector<HTMLButtonElement>(selector)!.click();
    return { reviews, view, outcome, card, click };
  }

  it('shows where the change goes and its diff; Apply applies it', async () => {
    const { view, outcome, card, click } = setUp();
    expect(card()!.textContent).toContain('analysis.ipynb, cell 2');
    expect(
      [...card()!.querySelectorAll('.jp-AgentPanel-diffLine')].map(
        row => row.textContent
      )
    ).toEqual(['−prnt("hi")', '+print("hi")']);
    expect(card()!.querySelector('.jp-AgentPanel-diffStats')!.textContent).toBe(
      '1 line added, 1 line removed'
    );
    click('.jp-AgentPanel-changeApply');
    expect(await outcome).toEqual<ReviewOutcome>({
      verdict: 'apply',
      editedSource: null
    });
    expect(card()).toBeNull();
    expect(view.node.hidden).toBe(true);
    view.dispose();
  });

  it('Edit applies the source the user typed, the diff following it', async () => {
    const { view, outcome, card, click } = setUp();
    click('.jp-AgentPanel-changeEdit');
    const editor = card()!.querySelector<HTMLTextAreaElement>(
      '.jp-AgentPanel-changeEditor'
    )!;
    expect(editor.value).toBe('print("hi")');
    editor.value = 'print("hello")';
    editor.dispatchEvent(new Event('input', { bubbles: true }));
    expect(
      card()!.querySelector('.jp-AgentPanel-diffLine[data-kind="added"]')!
        .textContent
    ).toBe('+print("hello")');
    click('.jp-AgentPanel-changeApplyEdited');
    expect(await outcome).toEqual({
      verdict: 'apply',
      editedSource: 'print("hello")'
    });
    view.dispose();
  });

  it('Reject sends the reason, or none when it is blank', async () => {
    const { view, outcome, card, click } = setUp();
    click('.jp-AgentPanel-changeReject');
    card()!.querySelector<HTMLTextAreaElement>(
      '.jp-AgentPanel-reviewInput'
    )!.value = '  not now ';
    click('.jp-AgentPanel-changeSendReject');
    expect(await outcome).toEqual({ verdict: 'reject', reason: 'not now' });
    view.dispose();

    const second = setUp();
    second.click('.jp-AgentPanel-changeReject');
    second.click('.jp-AgentPanel-changeSendReject');
    expect(await second.outcome).toEqual({ verdict: 'reject', reason: null });
    second.view.dispose();
  });

  it('turns "always allow" on with Apply, shows it, and turns it off', async () => {
    const { reviews, view, outcome, card, click } = setUp({
      ...edit,
      tool: 'insert_cell',
      kind: 'insert',
      cellId: null,
      current: '',
      proposed: 'x = 1'
    });
    expect(card()!.querySelector('.jp-AgentPanel-changeEdit')).not.toBeNull();
    card()!.querySelector<HTMLInputElement>(
      '.jp-AgentPanel-changeAlways input'
    )!.checked = true;
    click('.jp-AgentPanel-changeApply');
    await outcome;
    expect(reviews.isAlwaysAllowed('insert_cell')).toBe(true);
    const chip = view.node.querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-alwaysAllowedTool'
    )!;
    expect(chip.textContent).toBe('insert_cell ×');
    expect(view.node.hidden).toBe(false);
    chip.click();
    expect(reviews.isAlwaysAllowed('insert_cell')).toBe(false);
    expect(view.node.hidden).toBe(true);
    view.dispose();
  });

  it('gives the focus a keyboard decision took away to the next review, unless the user moved it', async () => {
    const { reviews, view, outcome, click } = setUp();
    document.body.appendChild(view.node);
    // jsdom lays nothing out, and has no scrollIntoView.
    Element.prototype.scrollIntoView = jest.fn();
    const apply = () =>
      view.node.querySelector<HTMLButtonElement>('.jp-AgentPanel-changeApply');
    apply()!.focus();
    click('.jp-AgentPanel-changeApply');
    await outcome;
    expect(document.activeElement).toBe(document.body);
    void reviews.ask(
      { ...edit, tool: 'run_cell', kind: 'run' },
      new AbortController().signal
    );
    expect(document.activeElement).toBe(apply());

    // Focus the user put elsewhere stays there.
    const elsewhere = document.createElement('input');
    document.body.appendChild(elsewhere);
    click('.jp-AgentPanel-changeApply');
    elsewhere.focus();
    void reviews.ask(edit, new AbortController().signal);
    expect(document.activeElement).toBe(elsewhere);
    elsewhere.remove();

    // A mouse click (a pointer count) leaves the next review unfocused.
    apply()!.focus();
    apply()!.dispatchEvent(
      new MouseEvent('click', { bubbles: true, detail: 1 })
    );
    void reviews.ask(edit, new AbortController().signal);
    expect(document.activeElement).toBe(document.body);
    view.dispose();
    view.node.remove();
    delete (Element.prototype as Partial<Element>).scrollIntoView;
  });

  it('offers no Edit for a deletion, which shows what goes', () => {
    const { view, card } = setUp({
      ...edit,
      tool: 'delete_cell',
      kind: 'delete',
      proposed: ''
    });
    expect(card()!.querySelector('.jp-AgentPanel-changeEdit')).toBeNull();
    expect(
      card()!.querySelector('.jp-AgentPanel-changeApply')!.textContent
    ).toBe('Delete');
    expect(
      [...card()!.querySelectorAll('.jp-AgentPanel-diffLine')].map(
        row => (row as HTMLElement).dataset.kind
      )
    ).toEqual(['removed']);
    view.dispose();
  });
});
