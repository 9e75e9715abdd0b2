/**
 * What both AG-UI transports answer about going back in a conversation
 * (`transport/agui/branching.ts`, docs/protocol.md §8.8): a fork is refused
 * when runs carry only the latest messages, an unchanged message is not
 * answered again, and an edit starts from the memory cut before it.
 */
import { AguiHttpTransport } from '../../transport/agui/agui-http';
import { AguiWsTransport } from '../../transport/agui/agui-ws';
import type { IAgentTransport } from '../../contracts/transport';
import type { HistoryMode } from '../../wire/turn';

const noFetch = (): Promise<Response> =>
  Promise.reject(new Error('no request expected'));
const noSocket = (): never => {
  throw new Error('no socket expected');
};

const transports: [string, (history?: HistoryMode) => IAgentTransport][] = [
  [
    'AguiHttpTransport',
    history =>
      new AguiHttpTransport({
        url: 'http://127.0.0.1:9/agent',
        fetch: noFetch,
        connectTimeoutMs: 1000,
        idleTimeoutMs: 0,
        history
      })
  ],
  [
    'AguiWsTransport',
    history =>
      new AguiWsTransport({
        url: 'ws://127.0.0.1:9/ws/agent',
        connectTimeoutMs: 1000,
        idleTimeoutMs: 0,
        createSocket: noSocket,
        history
      })
  ]
];

describe.each(transports)('%s going back', (_name, create) => {
  it('refuses a fork only when runs carry the latest messages', () => {
    const full = create('full');
    const unset = create();
    const latest = create('latest');
    expect(full.forkRefusal).toBeNull();
    expect(unset.forkRefusal).toBeNull();
    expect(latest.forkRefusal).toContain('history: latest');
    [full, unset, latest].forEach(transport => transport.dispose());
  });

  it('does not answer an unchanged message again', () => {
    const transport = create();
    expect(transport.regenerateRefusal).toContain(
      'answers an unchanged message as a continuation'
    );
    transport.dispose();
  });

  it('starts an edit from the memory cut before the message', () => {
    const transport = create();
    const memory = {
      agui: 1,
      messages: [
        { id: 'm-1', role: 'user', content: 'one' },
        { id: 'm-2', role: 'assistant', content: 'two' }
      ],
      interrupts: [{ id: 'i-1' }]
    };
    expect(transport.memoryBefore!(memory, 'm-2')).toEqual({
      agui: 1,
      messages: [{ id: 'm-1', role: 'user', content: 'one' }],
      interrupts: []
    });
    expect(transport.memoryBefore!(memory, 'm-9')).toBeNull();
    transport.dispose();
  });
});
