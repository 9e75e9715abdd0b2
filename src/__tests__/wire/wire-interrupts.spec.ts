import type { IWireInterrupt } from '../../wire/frame-types';
import { readReviewRows } from '../../wire/interrupts';

function payload(partial: Partial<IWireInterrupt>): IWireInterrupt {
  return {
    action_requests: [],
    review_configs: [],
    allowed_decisions: null,
    ...partial
  };
}

describe('readReviewRows: names and descriptions (docs/protocol.md §5.3)', () => {
  it.each([
    ['name', { name: 'write_file', action: 'x', tool: 'y' }, 'write_file'],
    ['action', { action: 'ask_user', tool: 'y' }, 'ask_user'],
    ['tool', { tool: 'search' }, 'search'],
    [
      'nested action_request',
      { action_request: { action: 'deploy' } },
      'deploy'
    ],
    ['nothing', { args: { a: 1 } }, null]
  ])('reads the name from %s', (_source, request, name) => {
    const [row] = readReviewRows(
      payload({ action_requests: [request] })
    ).actions;
    expect(row.name).toBe(name);
  });

  it('prefers the outer description, then the nested one', () => {
    const rows = readReviewRows(
      payload({
        action_requests: [
          {
            action_request: {
              action: 'a',
              description: 'inner',
              args: { x: 1 }
            },
            description: 'outer'
          },
          { action_request: { action: 'b', description: 'inner' } },
          { action_request: { action: 'c' }, args: { ignored: true } }
        ]
      })
    ).actions;
    expect(rows.map(row => row.description)).toEqual(['outer', 'inner', null]);
    expect(rows.map(row => row.args)).toEqual([{ x: 1 }, undefined, undefined]);
  });

  it('shows a string request as the question and anything else as JSON', () => {
    const rows = readReviewRows(
      payload({ action_requests: ['Deploy now?', 42, ['a']] })
    ).actions;
    expect(rows.map(row => [row.name, row.description, row.raw])).toEqual([
      [null, 'Deploy now?', 'Deploy now?'],
      [null, '42', 42],
      [null, '["a"]', ['a']]
    ]);
  });

  it('keeps the request as received', () => {
    const request = { name: 'f', args: {}, extra: { deep: true } };
    const [row] = readReviewRows(
      payload({ action_requests: [request] })
    ).actions;
    expect(row.raw).toBe(request);
    expect(row.synthetic).toBe(false);
  });
});

describe('readReviewRows: allowed decisions (docs/protocol.md §5.4)', () => {
  const requests = [
    { name: 'write_file', args: {} },
    { name: 'execute', args: {} }
  ];

  it('uses the same-index config when its name matches', () => {
    const rows = readReviewRows(
      payload({
        action_requests: requests,
        review_configs: [
          { action_name: 'write_file', allowed_decisions: ['approve', 'edit'] },
          { action_name: 'execute', allowed_decisions: ['reject'] }
        ],
        allowed_decisions: ['approve']
      })
    ).actions;
    expect(rows.map(row => row.allowed)).toEqual([
      ['edit', 'approve'],
      ['reject']
    ]);
  });

  it('falls back to the first config with the same name', () => {
    const rows = readReviewRows(
      payload({
        action_requests: requests,
        review_configs: [
          {
            action_name: 'execute',
            allowed_decisions: ['approve'],
            args_schema: { type: 'object' }
          },
          { action_name: 'write_file', allowed_decisions: ['edit'] },
          { action_name: 'execute', allowed_decisions: ['reject'] }
        ],
        allowed_decisions: ['respond']
      })
    ).actions;
    expect(rows.map(row => row.allowed)).toEqual([['edit'], ['approve']]);
    expect(rows.map(row => row.argsSchema)).toEqual([null, { type: 'object' }]);
  });

  it('keeps the matching config args_schema', () => {
    const [row] = readReviewRows(
      payload({
        action_requests: [{ name: 'f' }],
        review_configs: [
          {
            action_name: 'f',
            allowed_decisions: ['edit'],
            args_schema: { x: 1 }
          }
        ]
      })
    ).actions;
    expect(row.argsSchema).toEqual({ x: 1 });
  });

  it('uses the top-level list when no config matches', () => {
    const [row] = readReviewRows(
      payload({
        action_requests: [{ action: 'ask_user' }],
        review_configs: [{ action_name: 'other', allowed_decisions: ['edit'] }],
        allowed_decisions: ['respond', 'approve']
      })
    ).actions;
    expect(row.allowed).toEqual(['respond', 'approve']);
  });

  it('never leaves a row without a usable verb', () => {
    const result = readReviewRows(
      payload({
        action_requests: [{ name: 'f' }],
        review_configs: [{ action_name: 'f', allowed_decisions: ['accept'] }],
        allowed_decisions: ['ignore']
      })
    );
    expect(result.allowedDecisions).toEqual([
      'reject',
      'edit',
      'respond',
      'approve'
    ]);
    expect(result.actions[0].allowed).toEqual(result.allowedDecisions);
  });

  it('offers the default four when the producer sent no list', () => {
    expect(readReviewRows(payload({})).allowedDecisions).toEqual([
      'reject',
      'edit',
      'respond',
      'approve'
    ]);
  });
});

describe('readReviewRows: an empty action list', () => {
  it('gives one synthetic "agent paused" row with the top-level verbs', () => {
    const result = readReviewRows(
      payload({ allowed_decisions: ['approve', 'reject'] })
    );
    expect(result.actions).toEqual([
      {
        name: null,
        description: null,
        args: undefined,
        allowed: ['reject', 'approve'],
        argsSchema: null,
        synthetic: true,
        raw: null
      }
    ]);
    expect(result.actions[0].allowed).not.toBe(result.allowedDecisions);
  });
});
