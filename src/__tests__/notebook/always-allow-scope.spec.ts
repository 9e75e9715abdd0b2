/**
 * "Always allow" is scoped to the conversation and the tool it was given
 * for (docs/protocol.md §12.9, §16.6): another conversation, or another
 * tool, is still reviewed; and a call whose conversation moved on applies
 * nothing, whatever the conversation shown then allows.
 */
import { alwaysAllowedReviews } from '../../model/conversation/always-allowed';
import { ChangeReviews } from '../../model/conversation/change-reviews';
import type { LiveNotebooks } from '../../notebook/tools/live-notebook';
import { NotebookTools } from '../../notebook/tools/notebook-tools';
import { NotebookToolRunner } from '../../notebook/tools/tool-runner';
import { readReviewRows } from '../../wire/interrupts';
import { FakeNotebook } from './notebook-fakes';

/** A runner on one notebook; `conversation.id` is the conversation shown. */
function setUp(ready?: () => Promise<void>) {
  const notebook = new FakeNotebook('analysis.ipynb', [
    { id: 'c-1', cell_type: 'code', source: 'import math' }
  ]);
  const notebooks = {
    all: () => [notebook],
    active: () => notebook,
    find: () => notebook
  } as unknown as LiveNotebooks;
  const conversation = { id: 'one' };
  const reviews = new ChangeReviews(() => conversation.id);
  const runner = new NotebookToolRunner({
    tools: new NotebookTools(notebooks),
    reviews,
    reviewReads: () => false,
    threadId: () => conversation.id,
    ready
  });
  const insert = (signal = new AbortController().signal) =>
    runner.run(
      { name: 'insert_cell', args: { source: 'x = 1' }, callId: 'call-1' },
      signal
    );
  return { notebook, conversation, reviews, insert };
}

/** Until the call running asks for its review. */
async function asked(reviews: ChangeReviews): Promise<string[]> {
  for (let tries = 0; tries < 100 && reviews.pending.length === 0; tries++) {
    await Promise.resolve();
  }
  return reviews.pending.map(review => review.proposal.tool);
}

describe('always allow for the notebook tools', () => {
  it('skips the review in its conversation only', async () => {
    const { notebook, conversation, reviews, insert } = setUp();
    reviews.setAlwaysAllowed('insert_cell', true);
    expect(await insert()).toMatchObject({ status: 'applied' });
    expect(notebook.cells).toHaveLength(2);

    conversation.id = 'two';
    const call = insert();
    expect(await asked(reviews)).toEqual(['insert_cell']);
    reviews.decide(reviews.pending[0].id, { verdict: 'cancelled' });
    expect(await call).toMatchObject({ code: 'cancelled' });
    expect(notebook.cells).toHaveLength(2);
    reviews.dispose();
  });

  it('applies nothing for a call whose conversation moved on while it waited', async () => {
    let restore = () => undefined as void;
    const restored = new Promise<void>(resolve => (restore = resolve));
    const { notebook, conversation, reviews, insert } = setUp(() => restored);
    const stop = new AbortController();
    const call = insert(stop.signal);
    // Another conversation, where the tool is always allowed, is shown.
    conversation.id = 'two';
    reviews.setAlwaysAllowed('insert_cell', true);
    stop.abort();
    restore();

    expect(await call).toMatchObject({ status: 'error', code: 'cancelled' });
    expect(notebook.cells).toHaveLength(1);
    expect(reviews.pending).toEqual([]);
    reviews.dispose();
  });
});

describe('always allow for the reviews the panel approves', () => {
  const rows = (name: string) =>
    readReviewRows({
      action_requests: [{ name, args: {} }],
      review_configs: [
        { action_name: name, allowed_decisions: ['approve', 'reject'] }
      ],
      allowed_decisions: ['approve', 'reject']
    }).actions;

  it('approves its tool in its conversation only', () => {
    let conversation = 'one';
    const reviews = new ChangeReviews(() => conversation);
    const handler = alwaysAllowedReviews(reviews);
    const [shout] = rows('shout');
    const [add] = rows('add');
    reviews.setAlwaysAllowed('shout', true);
    expect(handler.handles(shout)).toBe(true);
    expect(handler.handles(add)).toBe(false);

    conversation = 'two';
    expect(handler.handles(shout)).toBe(false);
    conversation = 'one';
    expect(handler.handles(shout)).toBe(true);
    reviews.dispose();
  });
});
