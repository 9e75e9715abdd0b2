import {
  approve,
  buildResume,
  edit,
  reject,
  respond
} from '../../wire/decisions';
import type { Decision, IInterruptCard } from '../../wire/types';
import {
  interruptCards,
  loadCorpus,
  reduceFrames
} from '../support/wire-harness';

const corpus = new Map(
  loadCorpus('fixtures/chunk-wire').map(file => [file.name, file.lines])
);

/** The interrupt cards a corpus stream produces. */
function cardsOf(name: string): IInterruptCard[] {
  return interruptCards(reduceFrames(corpus.get(name) ?? []).state);
}

describe('decision builders give the exact JSON of docs/protocol.md §5.5', () => {
  it.each([
    [approve(), '{"type":"approve"}'],
    [
      edit('write_file', { path: 'notes.md', content: 'hello' }),
      '{"type":"edit","edited_action":{"name":"write_file","args":{"path":"notes.md","content":"hello"}}}'
    ],
    [reject(), '{"type":"reject"}'],
    [reject('not now'), '{"type":"reject","message":"not now"}'],
    [reject('   '), '{"type":"reject"}'],
    [respond('Ada'), '{"type":"respond","message":"Ada"}']
  ])('%j', (decision, json) => {
    expect(JSON.stringify(decision)).toBe(json);
  });

  it('refuses a respond without a message', () => {
    expect(() => respond('')).toThrow(
      'A respond decision needs a non-empty message.'
    );
    expect(() => respond(' \n ')).toThrow('non-empty message');
  });

  it('refuses an edit without a name or without arguments', () => {
    expect(() => edit('', {})).toThrow(
      'An edit decision needs the name of the action it edits.'
    );
    expect(() => edit('f', undefined)).toThrow(
      'An edit decision for "f" needs the new arguments.'
    );
  });
});

describe('buildResume (docs/protocol.md §5.6)', () => {
  const hitl = cardsOf('F09-hitl-two-actions-b.jsonl');

  it('answers every row in order', () => {
    expect(
      JSON.stringify(
        buildResume(hitl, [
          edit('write_file', { path: 'notes.md', content: 'hello' }),
          reject('not now')
        ])
      )
    ).toBe(
      '{"decisions":[{"type":"edit","edited_action":{"name":"write_file","args":{"path":"notes.md","content":"hello"}}},{"type":"reject","message":"not now"}]}'
    );
  });

  it('refuses a verb the row does not allow', () => {
    expect(() =>
      buildResume(hitl, [approve(), edit('execute', { command: 'ls' })])
    ).toThrow(
      'Decision 2 ("edit") is not allowed for "execute"; allowed: reject, approve.'
    );
    expect(() =>
      buildResume(cardsOf('F10a-demo-ask-turn1-b.jsonl'), [reject()])
    ).toThrow('Decision 1 ("reject") is not allowed for "ask_user"');
  });

  it('refuses an alias or unknown verb', () => {
    const alias = { type: 'accept' } as unknown as Decision;
    expect(() => buildResume(hitl, [approve(), alias])).toThrow(
      'Decision 2 ("accept") is not allowed'
    );
  });

  it('refuses the wrong number of decisions', () => {
    expect(() => buildResume(hitl, [approve()])).toThrow(
      'Expected 2 decision(s), one per action in order, got 1.'
    );
    expect(() => buildResume(hitl, [])).toThrow('got 0');
    expect(() => buildResume(hitl, [approve(), approve(), approve()])).toThrow(
      'got 3'
    );
  });

  it('refuses when there is nothing to answer', () => {
    expect(() => buildResume([], [approve()])).toThrow(
      'There is no interrupt to answer.'
    );
  });

  it('takes one decision for an interrupt with no action request', () => {
    const cards = cardsOf('F11b-bare-string-a.jsonl');
    expect(buildResume(cards, [approve()])).toEqual({
      decisions: [{ type: 'approve' }]
    });
    expect(() => buildResume(cards, [approve(), approve()])).toThrow(
      'Expected 1 decision(s)'
    );
  });

  it('answers the rows of several cards together, in order', () => {
    const cards = [
      ...cardsOf('F10a-demo-ask-turn1-b.jsonl'),
      ...cardsOf('F09-hitl-two-actions-b.jsonl')
    ];
    expect(
      buildResume(cards, [respond('Ada'), approve(), reject()]).decisions
    ).toEqual([
      { type: 'respond', message: 'Ada' },
      { type: 'approve' },
      { type: 'reject' }
    ]);
    expect(() =>
      buildResume(cards, [approve(), approve(), respond('x')])
    ).toThrow('Decision 3 ("respond") is not allowed for "execute"');
  });

  it('checks hand-built decisions and sends only the documented keys', () => {
    const [card] = cardsOf('F11c-single-humaninterrupt.jsonl');
    const emptyRespond = { type: 'respond', message: '' } as Decision;
    expect(() => buildResume([card], [emptyRespond])).toThrow(
      'A respond decision needs a non-empty message.'
    );
    const noisy = { type: 'approve', note: 'extra' } as unknown as Decision;
    expect(JSON.stringify(buildResume([card], [noisy]))).toBe(
      '{"decisions":[{"type":"approve"}]}'
    );
    const editWithoutAction = { type: 'edit' } as unknown as Decision;
    expect(() => buildResume([card], [editWithoutAction])).toThrow(
      'An edit decision needs the name of the action it edits.'
    );
  });
});
