import { ReviewCardView } from '../../../panel/review/review-card';
import { readReviewRows } from '../../../wire/interrupts';
import type { IInterruptCard } from '../../../wire/types';
import {
  click,
  makeContext,
  type ITestContext,
  typeInto
} from '../../support/panel-fakes';

const HITL = {
  action_requests: [
    {
      name: 'write_file',
      args: { path: 'notes.md', content: 'Draft notes' },
      description: 'Write a file'
    },
    { name: 'execute', args: { command: 'rm -rf build' } }
  ],
  review_configs: [
    {
      action_name: 'write_file',
      allowed_decisions: ['approve', 'edit', 'reject', 'respond']
    },
    { action_name: 'execute', allowed_decisions: ['approve', 'reject'] }
  ],
  allowed_decisions: ['approve', 'edit', 'reject', 'respond']
};

const ASK = {
  action_requests: [
    { action: 'ask_user', args: { question: 'What should I call you?' } }
  ],
  review_configs: [],
  allowed_decisions: ['respond', 'approve']
};

function interruptCard(payload: Record<string, unknown>): IInterruptCard {
  const { actions, allowedDecisions } = readReviewRows({
    action_requests: [],
    review_configs: [],
    allowed_decisions: [],
    ...payload
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

function showCard(
  payload: Record<string, unknown>,
  context: ITestContext = makeContext()
) {
  const card = interruptCard(payload);
  const view = new ReviewCardView(context.trans, context.onDecisions);
  document.body.appendChild(view.widget.node);
  view.update(card);
  view.settle('interrupted');
  const node = view.widget.node;
  const row = (index: number) =>
    node.querySelector<HTMLElement>(`[data-row="${index}"]`)!;
  const verbs = (index: number) =>
    [...row(index).querySelectorAll<HTMLElement>('[data-verb]')].map(
      b => b.dataset.verb
    );
  return { view, card, node, row, verbs, context };
}

afterEach(() => document.body.replaceChildren());

describe('review card', () => {
  it('offers exactly the decisions each row allows', () => {
    const { verbs, node } = showCard(HITL);
    expect(verbs(0)).toEqual(['reject', 'edit', 'respond', 'approve']);
    expect(verbs(1)).toEqual(['reject', 'approve']);
    expect(
      node.querySelector('[data-row="0"] .jp-AgentPanel-reviewAction')!
        .textContent
    ).toBe('write_file');
    expect(node.textContent).toContain('Write a file');
    expect(node.textContent).toContain('"command": "rm -rf build"');
  });

  it('keeps the buttons disabled until the turn has paused', () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions);
    view.update(interruptCard(ASK));
    const button = view.widget.node.querySelector<HTMLButtonElement>(
      '[data-verb="approve"]'
    )!;
    expect(button.disabled).toBe(true);
    view.settle('interrupted');
    expect(button.disabled).toBe(false);
  });

  it('sends a single approval once, however often it is clicked', () => {
    const { row, context } = showCard(ASK);
    const approve = row(0).querySelector('[data-verb="approve"]');
    click(approve);
    click(approve);
    expect(context.decisions).toEqual([[{ type: 'approve' }]]);
  });

  it('requires a message to respond', () => {
    const { row, context } = showCard(ASK);
    click(row(0).querySelector('[data-verb="respond"]'));
    const confirm = row(0).querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-confirm'
    )!;
    expect(confirm.disabled).toBe(true);
    expect(row(0).textContent).toContain('An answer is required.');
    const input = row(0).querySelector('textarea')!;
    typeInto(input, '   ');
    expect(confirm.disabled).toBe(true);
    typeInto(input, 'Ada');
    expect(confirm.disabled).toBe(false);
    click(confirm);
    expect(context.decisions).toEqual([[{ type: 'respond', message: 'Ada' }]]);
  });

  it('takes an optional reason to reject', () => {
    const single = {
      ...HITL,
      action_requests: [HITL.action_requests[1]],
      review_configs: [HITL.review_configs[1]]
    };
    const first = showCard(single);
    click(first.row(0).querySelector('[data-verb="reject"]'));
    click(first.row(0).querySelector('.jp-AgentPanel-confirm'));
    expect(first.context.decisions).toEqual([[{ type: 'reject' }]]);

    const second = showCard(single);
    click(second.row(0).querySelector('[data-verb="reject"]'));
    typeInto(second.row(0).querySelector('textarea'), 'not now');
    click(second.row(0).querySelector('.jp-AgentPanel-confirm'));
    expect(second.context.decisions).toEqual([
      [{ type: 'reject', message: 'not now' }]
    ]);
  });

  it('edits arguments as JSON with live validation and a diff', () => {
    const { row, context } = showCard(HITL);
    click(row(0).querySelector('[data-verb="edit"]'));
    const editor = row(0).querySelector('textarea')!;
    const confirm = row(0).querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-confirm'
    )!;
    expect(JSON.parse(editor.value)).toEqual({
      path: 'notes.md',
      content: 'Draft notes'
    });
    expect(row(0).textContent).toContain('No changes yet.');

    typeInto(editor, '{"path": ');
    expect(confirm.disabled).toBe(true);
    expect(
      row(0).querySelector('.jp-AgentPanel-reviewError')!.textContent
    ).toMatch(/^Not valid JSON/);
    typeInto(editor, '["a"]');
    expect(confirm.disabled).toBe(true);
    expect(row(0).textContent).toContain('The arguments must be a JSON object');

    typeInto(
      editor,
      '{"path": "final.md", "content": "Draft notes", "mode": "w"}'
    );
    expect(confirm.disabled).toBe(false);
    const changes = [...row(0).querySelectorAll('.jp-AgentPanel-diff li')].map(
      li => [(li as HTMLElement).dataset.kind, li.textContent]
    );
    expect(changes).toEqual([
      ['changed', '~ path changed: "notes.md" → "final.md"'],
      ['added', '+ mode added: "w"']
    ]);
    click(confirm);
    // Two rows: nothing is sent before the card is submitted.
    expect(context.decisions).toEqual([]);
    expect(row(0).textContent).toContain('Your decision: Edited the arguments');
  });

  it('uses a form when the action gives a simple args_schema', () => {
    const { row, context } = showCard({
      action_requests: [{ name: 'resize', args: { path: 'a.png', width: 10 } }],
      review_configs: [
        {
          action_name: 'resize',
          allowed_decisions: ['edit', 'approve'],
          args_schema: {
            type: 'object',
            properties: {
              // eslint-disable-next-line jupyter/no-untranslated-string -- test data: a schema title
              path: { type: 'string', title: 'Path' },
              width: { type: 'integer' },
              keep: { type: 'boolean' }
            },
            required: ['path', 'width']
          }
        }
      ]
    });
    click(row(0).querySelector('[data-verb="edit"]'));
    const form = row(0).querySelector('.jp-AgentPanel-argsForm')!;
    const inputs = form.querySelectorAll<HTMLInputElement>('input');
    expect([...inputs].map(i => [i.type, i.value])).toEqual([
      ['text', 'a.png'],
      ['number', '10'],
      ['checkbox', 'on']
    ]);
    expect(form.textContent).toContain('Path (required)');
    const confirm = row(0).querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-confirm'
    )!;
    typeInto(inputs[1], '10.5');
    expect(confirm.disabled).toBe(true);
    expect(form.textContent).toContain('"width" must be a whole number.');
    typeInto(inputs[1], '20');
    inputs[2].checked = true;
    inputs[2].dispatchEvent(new Event('change', { bubbles: true }));
    expect(confirm.disabled).toBe(false);
    click(confirm);
    expect(context.decisions).toEqual([
      [
        {
          type: 'edit',
          edited_action: {
            name: 'resize',
            args: { path: 'a.png', width: 20, keep: true }
          }
        }
      ]
    ]);
  });

  it('falls back to JSON when the schema is not a simple one', () => {
    const { row } = showCard({
      action_requests: [{ name: 'plan', args: { steps: ['a'] } }],
      review_configs: [
        {
          action_name: 'plan',
          allowed_decisions: ['edit'],
          args_schema: {
            type: 'object',
            properties: { steps: { type: 'array' } }
          }
        }
      ]
    });
    click(row(0).querySelector('[data-verb="edit"]'));
    expect(row(0).querySelector('.jp-AgentPanel-argsForm')).toBeNull();
    expect(
      row(0).querySelector('.jp-AgentPanel-argsJson textarea')
    ).not.toBeNull();
  });

  it('collects a decision per row and submits once, in order', () => {
    const { row, node, context } = showCard(HITL);
    const submit = node.querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-reviewSubmit'
    )!;
    expect(submit.disabled).toBe(true);
    click(row(0).querySelector('[data-verb="edit"]'));
    typeInto(
      row(0).querySelector('textarea'),
      '{"path": "b.md", "content": "Draft notes"}'
    );
    click(row(0).querySelector('.jp-AgentPanel-confirm'));
    expect(submit.disabled).toBe(true);
    expect(node.textContent).toContain('1 of 2 decided');
    click(row(1).querySelector('[data-verb="reject"]'));
    typeInto(row(1).querySelector('textarea'), 'too risky');
    click(row(1).querySelector('.jp-AgentPanel-confirm'));
    expect(submit.disabled).toBe(false);
    click(submit);
    click(submit);
    expect(context.decisions).toEqual([
      [
        {
          type: 'edit',
          edited_action: {
            name: 'write_file',
            args: { path: 'b.md', content: 'Draft notes' }
          }
        },
        { type: 'reject', message: 'too risky' }
      ]
    ]);
    expect(row(0).dataset.state).toBe('sent');
    expect(row(0).querySelector('[data-action="change"]')).toBeNull();
  });

  it('lets a row decision be changed before submitting', () => {
    const { row, node } = showCard(HITL);
    click(row(1).querySelector('[data-verb="approve"]'));
    expect(node.textContent).toContain('1 of 2 decided');
    click(row(1).querySelector('[data-action="change"]'));
    expect(row(1).dataset.state).toBe('choosing');
    expect(node.textContent).toContain('0 of 2 decided');
  });

  it('offers Approve all / Reject all only when every row allows it', () => {
    const both = showCard(HITL);
    expect(both.node.querySelector('.jp-AgentPanel-approveAll')).not.toBeNull();
    expect(both.node.querySelector('.jp-AgentPanel-rejectAll')).not.toBeNull();
    click(both.node.querySelector('.jp-AgentPanel-rejectAll'));
    expect(both.context.decisions).toEqual([
      [{ type: 'reject' }, { type: 'reject' }]
    ]);

    const noReject = showCard({
      ...HITL,
      review_configs: [
        { action_name: 'write_file', allowed_decisions: ['approve', 'edit'] },
        { action_name: 'execute', allowed_decisions: ['approve', 'reject'] }
      ]
    });
    expect(noReject.node.querySelector('.jp-AgentPanel-rejectAll')).toBeNull();
    click(noReject.node.querySelector('.jp-AgentPanel-approveAll'));
    expect(noReject.context.decisions).toEqual([
      [{ type: 'approve' }, { type: 'approve' }]
    ]);
  });

  it('unlocks the card when the model refuses the decisions', () => {
    const context = makeContext();
    context.accept = false;
    const { row, node } = showCard(HITL, context);
    click(node.querySelector('.jp-AgentPanel-approveAll'));
    expect(context.decisions).toHaveLength(1);
    expect(row(0).dataset.state).toBe('decided');
    expect(
      node.querySelector<HTMLButtonElement>('.jp-AgentPanel-reviewSubmit')!
        .disabled
    ).toBe(false);
  });

  it('records the decisions that were sent, with no buttons left', () => {
    const { view, card, node, row } = showCard(HITL);
    card.answered = [
      { type: 'approve' },
      { type: 'reject', message: 'not now' }
    ];
    view.update(card);
    expect(node.dataset.state).toBe('answered');
    expect(
      node.querySelector('.jp-AgentPanel-reviewHeading')!.textContent
    ).toBe('Review sent');
    expect(row(0).textContent).toContain('Sent: Approved');
    expect(row(1).textContent).toContain('Sent: Rejected: not now');
    expect(
      [
        ...node.querySelectorAll<HTMLElement>('.jp-AgentPanel-reviewButtons')
      ].every(b => b.hidden)
    ).toBe(true);
    expect(
      [...node.querySelectorAll<HTMLButtonElement>('[data-verb]')].every(
        b => b.disabled
      )
    ).toBe(true);
    expect(
      node.querySelector<HTMLElement>('.jp-AgentPanel-reviewFooter')!.hidden
    ).toBe(true);
  });

  it('offers no buttons for a review a plugin answers (a notebook change), until it is answered', () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      answeredByPlugin: action => action.name === 'ask_user'
    });
    const card = interruptCard(ASK);
    view.update(card);
    view.settle('interrupted');
    expect(view.widget.node.dataset.state).toBe('delegated');
    expect(view.widget.node.textContent).toContain(
      'Review the proposed notebook change below the conversation.'
    );
    expect(view.rows[0].state).toBe('waiting');
    view.update({ ...card, answered: [{ type: 'approve' }] });
    expect(view.widget.node.dataset.state).toBe('answered');
    view.dispose();
  });

  it("is the user's to answer when the plugin takes only some rows", () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions, {
      answeredByPlugin: () => false
    });
    view.update(interruptCard(ASK));
    view.settle('interrupted');
    expect(view.widget.node.dataset.state).toBe('open');
    expect(view.rows[0].state).toBe('choosing');
    view.dispose();
  });

  it('cannot be answered when the turn failed after pausing', () => {
    const context = makeContext();
    const view = new ReviewCardView(context.trans, context.onDecisions);
    view.update(interruptCard(ASK));
    view.settle('error');
    expect(view.widget.node.dataset.state).toBe('expired');
    expect(view.widget.node.textContent).toContain('can no longer be answered');
    expect(view.rows[0].state).toBe('expired');
  });

  it('shows a generic row when the interrupt names no action', () => {
    const { row, verbs } = showCard({
      action_requests: [],
      allowed_decisions: ['approve', 'reject']
    });
    expect(row(0).textContent).toContain('The agent paused');
    expect(verbs(0)).toEqual(['reject', 'approve']);
  });
});
