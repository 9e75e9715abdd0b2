/**
 * A review row whose only verb is `respond` is a question
 * (docs/protocol.md §5.4): the panel asks it in words and opens the answer
 * box once the turn has paused, with no Respond, Approve or Cancel button; a
 * card of questions says "The agent asks you a question" and, once
 * answered, "Answer sent".
 */
import { ReviewCardView } from '../../../panel/review/review-card';
import { questionOf, readReviewRows } from '../../../wire/interrupts';
import type { IInterruptCard } from '../../../wire/types';
import { click, makeContext, typeInto } from '../../support/panel-fakes';

/** The keyless demo's "quiz me" (jupyterlab_agent_panel/demo/showcase.py). */
const QUIZ = {
  action_requests: [{ name: 'quiz', description: 'What is 6 × 7?' }],
  review_configs: [{ action_name: 'quiz', allowed_decisions: ['respond'] }],
  allowed_decisions: ['respond']
};

function cardOf(payload: Record<string, unknown>): IInterruptCard {
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

function show(payload: Record<string, unknown>, paused = true) {
  const context = makeContext();
  const view = new ReviewCardView(context.trans, context.onDecisions);
  document.body.appendChild(view.widget.node);
  const card = cardOf(payload);
  view.update(card);
  if (paused) {
    view.settle('interrupted');
  }
  const node = view.widget.node;
  const $ = <T extends HTMLElement = HTMLElement>(selector: string) =>
    node.querySelector<T>(selector);
  const heading = () => $('.jp-AgentPanel-reviewHeading')!.textContent;
  return { view, card, node, $, heading, context };
}

afterEach(() => document.body.replaceChildren());

describe('questionOf', () => {
  const rows = (payload: Record<string, unknown>) =>
    cardOf(payload).actions.map(questionOf);

  it('reads the description, else a question argument, of a row that takes only an answer', () => {
    expect(rows(QUIZ)).toEqual(['What is 6 × 7?']);
    expect(
      rows({
        action_requests: [
          { action: 'ask_user', args: { question: 'Which folder?' } }
        ],
        allowed_decisions: ['respond']
      })
    ).toEqual(['Which folder?']);
  });

  it('is null for a row that allows more, or says nothing', () => {
    expect(
      rows({
        ...QUIZ,
        review_configs: [],
        allowed_decisions: ['respond', 'approve']
      })
    ).toEqual([null]);
    expect(
      rows({
        action_requests: [{ name: 'quiz', args: { other: 1 } }],
        allowed_decisions: ['respond']
      })
    ).toEqual([null]);
    expect(rows({ allowed_decisions: ['respond'] })).toEqual([null]);
  });
});

describe('a question', () => {
  it('is asked in words with its answer box open once the turn paused', () => {
    const { $, node, heading, context } = show(QUIZ);
    expect(heading()).toBe('The agent asks you a question');
    expect($('.jp-AgentPanel-reviewQuestion')!.textContent).toBe(
      'What is 6 × 7?'
    );
    expect($('.jp-AgentPanel-reviewRow')!.classList).toContain(
      'jp-mod-question'
    );
    // Not an action to review: no name, no verbs, nothing to cancel.
    expect($('.jp-AgentPanel-reviewAction')).toBeNull();
    expect(node.querySelectorAll('[data-verb]')).toHaveLength(0);
    expect($('.jp-AgentPanel-cancel')).toBeNull();
    const answer = $<HTMLTextAreaElement>('.jp-AgentPanel-reviewInput')!;
    expect(answer.placeholder).toBe('Your answer (required)');
    const send = $<HTMLButtonElement>('.jp-AgentPanel-confirm')!;
    expect(send.textContent).toBe('Send answer');
    expect(send.disabled).toBe(true);
    typeInto(answer, '42');
    click(send);
    expect(context.decisions).toEqual([[{ type: 'respond', message: '42' }]]);
  });

  it('shows no answer box before the turn pauses, nor after it ended otherwise', () => {
    const running = show(QUIZ, false);
    expect(running.$('.jp-AgentPanel-reviewQuestion')!.textContent).toBe(
      'What is 6 × 7?'
    );
    expect(running.$('.jp-AgentPanel-reviewInput')).toBeNull();
    running.view.settle('complete');
    expect(running.$('.jp-AgentPanel-reviewInput')).toBeNull();
    expect(running.$('.jp-AgentPanel-reviewOutcome')!.textContent).toBe(
      'Not answered.'
    );
  });

  it('says its answer was sent', () => {
    const { view, card, heading, $ } = show(QUIZ);
    view.update({ ...card, answered: [{ type: 'respond', message: '42' }] });
    expect(heading()).toBe('Answer sent');
    expect($('.jp-AgentPanel-reviewOutcome')!.textContent).toBe(
      'Sent: Responded: 42'
    );
    expect($('.jp-AgentPanel-reviewInput')).toBeNull();
  });

  it('does not repeat a question argument, and shows the other arguments', () => {
    const asked = show({
      action_requests: [
        { action: 'ask_user', args: { question: 'Which folder?' } }
      ],
      allowed_decisions: ['respond']
    });
    expect(asked.$('.jp-AgentPanel-reviewQuestion')!.textContent).toBe(
      'Which folder?'
    );
    expect(asked.$('.jp-AgentPanel-reviewArgs')).toBeNull();
    const described = show({
      ...QUIZ,
      action_requests: [{ ...QUIZ.action_requests[0], args: { hint: 'a' } }]
    });
    expect(described.$('.jp-AgentPanel-reviewArgs')!.textContent).toContain(
      '"hint": "a"'
    );
  });

  it('in a card of several, each is answered, changed in its own box, and sent together', () => {
    const { node, heading, context } = show({
      action_requests: [
        { name: 'quiz', description: 'First?' },
        { name: 'quiz', description: 'Second?' }
      ],
      allowed_decisions: ['respond']
    });
    expect(heading()).toBe('The agent asks you 2 questions');
    const row = (i: number) =>
      node.querySelector<HTMLElement>(`[data-row="${i}"]`)!;
    const answer = (i: number, text: string) => {
      typeInto(row(i).querySelector('textarea'), text);
      click(row(i).querySelector('.jp-AgentPanel-confirm'));
    };
    answer(0, 'one');
    click(row(0).querySelector('.jp-AgentPanel-change'));
    expect(row(0).querySelector('textarea')).not.toBeNull();
    answer(0, 'uno');
    answer(1, 'two');
    click(node.querySelector('.jp-AgentPanel-reviewSubmit'));
    expect(context.decisions).toEqual([
      [
        { type: 'respond', message: 'uno' },
        { type: 'respond', message: 'two' }
      ]
    ]);
  });

  it('beside an action to approve keeps the card a review', () => {
    const { heading, node } = show({
      action_requests: [
        { name: 'quiz', description: 'First?' },
        { name: 'execute', args: { command: 'ls' } }
      ],
      review_configs: [
        { action_name: 'quiz', allowed_decisions: ['respond'] },
        { action_name: 'execute', allowed_decisions: ['approve', 'reject'] }
      ]
    });
    expect(heading()).toBe('The agent is waiting for your review of 2 actions');
    expect(
      [...node.querySelectorAll<HTMLElement>('[data-verb]')].map(
        b => b.dataset.verb
      )
    ).toEqual(['reject', 'approve']);
  });

  it('that says nothing stays an action with a Respond button', () => {
    const { node, heading } = show({ allowed_decisions: ['respond'] });
    expect(heading()).toBe('The agent is waiting for your review');
    expect(
      [...node.querySelectorAll<HTMLElement>('[data-verb]')].map(
        b => b.dataset.verb
      )
    ).toEqual(['respond']);
  });
});
