import { chunk, click, complete } from '../support/panel-fakes';
import { harness, result, tool } from './turn-harness';

afterEach(() => {
  document.body.replaceChildren();
});

const groups = (root: HTMLElement) => [
  ...root.querySelectorAll<HTMLElement>('.jp-AgentPanel-toolGroup')
];
const head = (group: HTMLElement) =>
  group.querySelector<HTMLButtonElement>('.jp-AgentPanel-toolGroupHead')!;
const calls = (group: HTMLElement) =>
  group.querySelector<HTMLElement>('.jp-AgentPanel-toolGroupCalls')!;
const shown = (node: Element) =>
  !node.classList.contains('lm-mod-hidden') &&
  !node.parentElement!.classList.contains('lm-mod-hidden');

describe('Consecutive tool calls', () => {
  it('are one group, its head saying how many, that the reader collapses and opens again', () => {
    const h = harness();
    h.push(tool({ q: 1 }, 'c1'));
    const [group] = groups(h.turn().node);
    // One call is shown alone.
    expect(shown(head(group))).toBe(false);
    expect(group.classList).not.toContain('jp-mod-grouped');

    h.push(tool({ q: 2 }, 'c2'));
    expect(groups(h.turn().node)).toEqual([group]);
    expect(shown(head(group))).toBe(true);
    expect(group.classList).toContain('jp-mod-grouped');
    expect(head(group).textContent).toBe('2 tool calls (2 running)');
    expect(head(group).getAttribute('aria-expanded')).toBe('true');
    expect(head(group).getAttribute('aria-controls')).toBe(calls(group).id);
    expect(calls(group).querySelectorAll('.jp-AgentPanel-tool')).toHaveLength(
      2
    );

    h.push(result('one'));
    h.push(result('two', { id: 'c2' }));
    expect(head(group).textContent).toBe('2 tool calls');

    click(head(group));
    expect(head(group).getAttribute('aria-expanded')).toBe('false');
    expect(calls(group).classList).toContain('lm-mod-hidden');
    click(head(group));
    expect(head(group).getAttribute('aria-expanded')).toBe('true');
    expect(calls(group).classList).not.toContain('lm-mod-hidden');
  });

  it('says how many failed, were rejected or wait for a review', () => {
    const h = harness();
    h.push(tool({ q: 1 }, 'c1'));
    h.push(tool({ q: 2 }, 'c2'));
    h.push(tool({ q: 3 }, 'c3'));
    h.push(result('Error: no such table', { tool_status: 'error' }));
    h.push(
      result('User rejected the tool call for `lookup` with reason: no', {
        id: 'c2',
        tool_status: 'error'
      })
    );
    const [group] = groups(h.turn().node);
    expect(head(group).textContent).toBe(
      '3 tool calls (1 failed, 1 rejected, 1 running)'
    );
    h.push({
      status: 'interrupt',
      interrupt: {
        action_requests: [{ name: 'lookup', args: { q: 3 } }],
        review_configs: [
          { action_name: 'lookup', allowed_decisions: ['approve', 'reject'] }
        ]
      }
    });
    h.transport.lastTurn.sink.frame(complete('interrupted'));
    expect(head(group).textContent).toBe(
      '3 tool calls (1 failed, 1 rejected, 1 waits for your review)'
    );
  });

  it('end where something else is said: text between calls starts a new group', () => {
    const h = harness();
    h.push(tool({ q: 1 }, 'c1'));
    h.push(tool({ q: 2 }, 'c2'));
    h.transport.lastTurn.sink.frame(
      chunk('Now the second part.', { message_id: 'm2' })
    );
    h.push(tool({ q: 3 }, 'c3'));
    const found = groups(h.turn().node);
    expect(found).toHaveLength(2);
    expect(head(found[0]).textContent).toBe('2 tool calls (2 running)');
    expect(shown(head(found[1]))).toBe(false);
    // In the order they were said.
    const order = [...h.turn().node.children].map(node =>
      node.classList.contains('jp-AgentPanel-toolGroup')
        ? 'group'
        : node.classList.contains('jp-AgentPanel-textItem')
          ? 'text'
          : null
    );
    expect(order.filter(Boolean)).toEqual(['group', 'text', 'group']);
  });

  it('count only the calls shown: a call shown in the turn that made it is not counted again', () => {
    const h = harness();
    h.push(tool({ q: 1 }, 'c1'));
    h.push({
      status: 'interrupt',
      interrupt: {
        action_requests: [{ name: 'lookup', args: { q: 1 } }],
        review_configs: [
          { action_name: 'lookup', allowed_decisions: ['approve', 'reject'] }
        ]
      }
    });
    h.transport.lastTurn.sink.frame(complete('interrupted'));
    h.model.answer([{ type: 'approve' }]);
    // langstage-core announces the reviewed call again, then a new one.
    h.push(tool({ q: 1 }, 'c1'));
    h.push(result('one'));
    h.push(tool({ q: 2 }, 'c2'));
    const [group] = groups(h.turn().node);
    const cards = [
      ...calls(group).querySelectorAll<HTMLElement>('.jp-AgentPanel-tool')
    ];
    expect(cards).toHaveLength(2);
    expect(cards.filter(card => shown(card))).toHaveLength(1);
    expect(shown(head(group))).toBe(false);
    expect(group.classList).not.toContain('jp-mod-grouped');
  });
});
