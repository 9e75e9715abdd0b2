/**
 * Reviews of an agent's file changes and "always allow"
 * (docs/protocol.md §16.6): what `write_file`, `edit_file` and `delete` would change (pure),
 * the diff in the review row against the file as the contents API gives it,
 * and the panel approving later reviews of an always allowed tool.
 */
import { ChangeReviews } from '../../../model/conversation/change-reviews';
import {
  alwaysAllowedReviews,
  isAlwaysAllowed
} from '../../../model/conversation/always-allowed';
import { ReviewCardView } from '../../../panel/review/review-card';
import { fileChange, type FileText } from '../../../wire/file-change';
import { readReviewRows } from '../../../wire/interrupts';
import type { IInterruptCard } from '../../../wire/types';
import { click, makeContext } from '../../support/panel-fakes';

const TEXT = (text: string): FileText => ({ kind: 'text', text });
const MISSING: FileText = { kind: 'missing' };

function card(
  requests: { name: string; args: unknown }[],
  allowed: string[] = ['approve', 'edit', 'reject']
): IInterruptCard {
  const { actions, allowedDecisions } = readReviewRows({
    action_requests: requests,
    review_configs: requests.map(r => ({
      action_name: r.name,
      allowed_decisions: allowed
    })),
    allowed_decisions: allowed
  } as any);
  return {
    kind: 'interrupt',
    key: 1,
    actions,
    allowedDecisions,
    interruptIds: [],
    answered: null
  };
}

describe('fileChange', () => {
  it('writes a whole file, new or over an old one', () => {
    const write = { file_path: '/notes/a.txt', content: 'new\n' };
    expect(fileChange('write_file', write, MISSING)).toEqual({
      path: 'notes/a.txt',
      before: '',
      after: 'new\n',
      partial: null
    });
    expect(fileChange('write_file', write, TEXT('old\n'))?.before).toBe(
      'old\n'
    );
  });

  it('replaces the first occurrence, or every one with replace_all', () => {
    const text = TEXT('a = 1\nb = 1\n');
    const args = { file_path: '/x.py', old_string: '1', new_string: '2' };
    expect(fileChange('edit_file', args, text)?.after).toBe('a = 2\nb = 1\n');
    expect(
      fileChange('edit_file', { ...args, replace_all: true }, text)?.after
    ).toBe('a = 2\nb = 2\n');
    // `$&` in the new text is not a replacement pattern.
    expect(
      fileChange('edit_file', { ...args, new_string: '$&' }, text)?.after
    ).toBe('a = $&\nb = 1\n');
  });

  it('shows only the changing text when the file cannot be read or lacks it', () => {
    const args = { file_path: '/x.py', old_string: 'a', new_string: 'b' };
    expect(
      fileChange('edit_file', args, { kind: 'unreadable', reason: 'binary' })
    ).toEqual({
      path: 'x.py',
      before: 'a',
      after: 'b',
      partial: { why: 'unreadable', reason: 'binary' }
    });
    expect(fileChange('edit_file', args, TEXT('zzz'))?.partial).toEqual({
      why: 'no_match'
    });
  });

  it('deletes everything; names no change for another tool', () => {
    expect(fileChange('delete', { file_path: '/x' }, TEXT('x\n'))).toEqual({
      path: 'x',
      before: 'x\n',
      after: '',
      partial: null
    });
    expect(fileChange('execute', { command: 'ls' }, MISSING)).toBeNull();
    expect(fileChange('write_file', { content: 'x' }, MISSING)).toBeNull();
  });
});

describe('the review of a file change', () => {
  const lines = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n';

  async function shown(
    request: { name: string; args: unknown },
    file: FileText
  ) {
    const context = makeContext();
    const read: string[] = [];
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      readFile: async path => {
        read.push(path);
        return file;
      }
    });
    view.update(card([request]));
    view.settle('interrupted');
    await Promise.resolve();
    await Promise.resolve();
    const node = view.widget.node;
    const diff = () =>
      [...node.querySelectorAll('.jp-AgentPanel-fileChangeDiff > div > *')].map(
        line => (line as HTMLElement).textContent
      );
    return { view, node, diff, read, context };
  }

  it('diffs an edit against the whole file, with three lines around the change', async () => {
    const { node, diff, read, view } = await shown(
      {
        name: 'edit_file',
        args: { file_path: '/a.txt', old_string: 'five', new_string: 'FIVE' }
      },
      TEXT(lines)
    );
    expect(read).toEqual(['a.txt']);
    expect(
      node.querySelector('.jp-AgentPanel-fileChangePath')!.textContent
    ).toBe('a.txt');
    expect(node.querySelector('.jp-AgentPanel-diffStats')!.textContent).toBe(
      '1 line added, 1 line removed'
    );
    expect(diff()).toEqual([
      '… 1 unchanged line',
      ' two',
      ' three',
      ' four',
      '−five',
      '+FIVE',
      ' six',
      ' seven',
      ' eight',
      '… 1 unchanged line'
    ]);
    view.dispose();
  });

  it('says a written file is new, and follows an edit of the arguments', async () => {
    const { node, diff, view } = await shown(
      { name: 'write_file', args: { file_path: '/n.txt', content: 'hi\n' } },
      MISSING
    );
    expect(
      node.querySelector('.jp-AgentPanel-fileChangeNote')!.textContent
    ).toBe('A new file.');
    expect(diff()).toEqual(['+hi']);
    view.rows[0].decide({
      type: 'edit',
      edited_action: {
        name: 'write_file',
        args: { file_path: '/n.txt', content: 'hello\n' }
      }
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(diff()).toEqual(['+hello']);
    view.dispose();
  });

  it('says why it shows only the changing text of a file it could not read', async () => {
    const { node, diff, view } = await shown(
      {
        name: 'edit_file',
        args: { file_path: '/big.csv', old_string: 'a', new_string: 'b' }
      },
      { kind: 'unreadable', reason: 'it is larger than 1 MB' }
    );
    expect(
      node.querySelector('.jp-AgentPanel-fileChangeNote')!.textContent
    ).toBe(
      'Could not read the file (it is larger than 1 MB): only the text that changes is shown.'
    );
    expect(diff()).toEqual(['−a', '+b']);
    view.dispose();
  });
});

describe('always allow', () => {
  const shout = { name: 'shout', args: { text: 'hi' } };

  it('is offered for a row that can be approved, and kept when it is', () => {
    const context = makeContext();
    const allowed: string[] = [];
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      alwaysAllow: tool => allowed.push(tool)
    });
    view.update(card([shout], ['approve', 'reject']));
    view.settle('interrupted');
    const box = view.widget.node.querySelector<HTMLInputElement>(
      '.jp-AgentPanel-alwaysAllowReview input'
    )!;
    expect(box.parentElement!.textContent).toBe(
      ' Always allow shout in this conversation'
    );
    box.checked = true;
    click(view.widget.node.querySelector('[data-verb="approve"]')!);
    expect(allowed).toEqual(['shout']);
    expect(context.decisions).toEqual([[{ type: 'approve' }]]);
    view.dispose();
  });

  it('is not offered for a row that cannot be approved', () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      alwaysAllow: () => undefined
    });
    view.update(card([shout], ['respond', 'reject']));
    view.settle('interrupted');
    expect(
      view.widget.node.querySelector('.jp-AgentPanel-alwaysAllowReview')
    ).toBeNull();
    view.dispose();
  });

  it('approves a later review whose every row is allowed, and no other', async () => {
    const reviews = new ChangeReviews(() => 'thread-1');
    const handler = alwaysAllowedReviews(reviews);
    const [row] = card([shout], ['approve', 'reject']).actions;
    const [other] = card([{ name: 'add', args: {} }]).actions;
    expect(handler.handles(row)).toBe(false);
    reviews.setAlwaysAllowed('shout', true);
    expect(handler.handles(row)).toBe(true);
    expect(handler.handles(other)).toBe(false);
    expect(await handler.decide(row, new AbortController().signal)).toEqual({
      type: 'approve'
    });
    // A row that allows no approval is never approved for the user.
    const [answerOnly] = card([shout], ['respond']).actions;
    expect(isAlwaysAllowed(reviews, answerOnly)).toBe(false);
    reviews.setAlwaysAllowed('shout', false);
    expect(handler.handles(row)).toBe(false);
    reviews.dispose();
  });

  it('says when the panel approved a review itself', () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      answeredByPlugin: () => true,
      isAlwaysAllowed: () => true
    });
    view.update(card([shout], ['approve', 'reject']));
    view.settle('interrupted');
    expect(
      view.widget.node.querySelector('.jp-AgentPanel-reviewHeading')!
        .textContent
    ).toBe('Approved by the panel: always allowed in this conversation.');
    // And still once the answer is recorded.
    view.update({
      ...card([shout], ['approve', 'reject']),
      answered: [{ type: 'approve' }]
    });
    expect(
      view.widget.node.querySelector('.jp-AgentPanel-reviewHeading')!
        .textContent
    ).toBe('Approved by the panel: always allowed in this conversation.');
    view.dispose();
  });
});
