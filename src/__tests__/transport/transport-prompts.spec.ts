/**
 * The prompts an endpoint suggests in its health answer
 * (docs/protocol.md §6.1): read at the transport edge (strings only, not
 * blank, at most 200 characters, at most 5, said once), carried by the
 * health report and the health monitor, which says when they change.
 */
import { HealthMonitor } from '../../model/connection/health-monitor';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import {
  MAX_PROMPT_LENGTH,
  MAX_PROMPTS,
  readChunkWireHealth,
  readPrompts
} from '../../transport/http/http-answer';
import type { IHealthReport } from '../../contracts/transport';
import { trans } from '../support/fake-transport';
import { response } from '../support/http-fakes';

const BASE = 'http://lab.test/agent-panel/';
const DEMO_PROMPTS = [
  'Write a long answer',
  'What did I attach?',
  'Quiz me',
  'Make a plan',
  'Think about it'
];

function transportAnswering(body: string): ChunkWireHttpTransport {
  return new ChunkWireHttpTransport({
    baseUrl: BASE,
    connectTimeoutMs: 1000,
    idleTimeoutMs: 0,
    trans,
    fetch: async () => response(200, body, 'application/json')
  });
}

describe('readPrompts', () => {
  it('keeps the strings as they are suggested', () => {
    expect(readPrompts(DEMO_PROMPTS)).toEqual(DEMO_PROMPTS);
  });

  it('leaves out what is not a string, blank, too long or said before, and trims', () => {
    const tooLong = 'x'.repeat(MAX_PROMPT_LENGTH + 1);
    const longest = 'y'.repeat(MAX_PROMPT_LENGTH);
    expect(
      readPrompts([
        42,
        null,
        { text: 'an object' },
        ['a list'],
        '',
        '   ',
        tooLong,
        '  Quiz me  ',
        'Quiz me',
        longest
      ])
    ).toEqual(['Quiz me', longest]);
  });

  it('keeps the first five', () => {
    const many = Array.from({ length: 12 }, (_, i) => `prompt ${i + 1}`);
    expect(MAX_PROMPTS).toBe(5);
    expect(readPrompts(many)).toEqual(many.slice(0, MAX_PROMPTS));
    // Left-out entries do not count towards the five.
    expect(readPrompts([1, 2, '', ...many])).toEqual(many.slice(0, 5));
  });

  it('reads anything but a list as none', () => {
    for (const value of [undefined, null, 'Quiz me', 3, { 0: 'Quiz me' }]) {
      expect(readPrompts(value)).toEqual([]);
    }
  });
});

describe('the health answer’s prompts', () => {
  it('are read with the rest of the answer, a bad list costing nothing else', () => {
    expect(
      readChunkWireHealth(
        JSON.stringify({ ready: true, message: 'ok', prompts: 'Quiz me' })
      )
    ).toMatchObject({ ready: true, message: 'ok', prompts: [] });
  });

  it('reach the health report when the endpoint suggests some', async () => {
    const transport = transportAnswering(
      JSON.stringify({
        ready: true,
        message: 'Keyless demo agent ready',
        agent_name: 'Tool Demo Agent',
        model_choice: true,
        model: null,
        prompts: [...DEMO_PROMPTS, 'a sixth', 7]
      })
    );
    expect(await transport.checkHealth()).toEqual({
      state: 'healthy',
      message: 'Keyless demo agent ready',
      agentName: 'Tool Demo Agent',
      modelChoice: true,
      defaultModel: null,
      prompts: DEMO_PROMPTS
    });
  });

  it('are absent from the report of an endpoint that suggests none', async () => {
    for (const prompts of [undefined, [], [null, '  ']]) {
      const transport = transportAnswering(
        JSON.stringify({ ready: true, message: 'ok', prompts })
      );
      expect(await transport.checkHealth()).toEqual({
        state: 'healthy',
        message: 'ok',
        agentName: null
      });
    }
  });
});

describe('HealthMonitor and prompts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const report = (prompts?: string[]): IHealthReport => ({
    state: 'healthy',
    message: 'ok',
    agentName: null,
    ...(prompts ? { prompts } : {})
  });

  it('says when the suggested prompts change, and only then', async () => {
    const answers = [
      report(['Quiz me']),
      report(['Quiz me']),
      report(['Quiz me', 'Make a plan']),
      report()
    ];
    const health = new HealthMonitor({ healthyIntervalMs: 1000 });
    const seen: (readonly string[] | undefined)[] = [];
    health.changed.connect((_, status) => seen.push(status.prompts));
    health.setTarget(async () => answers.shift() ?? report());
    health.start();
    for (let i = 0; i < 4; i++) {
      await jest.advanceTimersByTimeAsync(i === 0 ? 0 : 1000);
    }
    // 'checking' first (no prompts), then each answer that differs.
    expect(seen).toEqual([
      undefined,
      ['Quiz me'],
      ['Quiz me', 'Make a plan'],
      undefined
    ]);
    expect(health.status).toEqual({
      state: 'healthy',
      message: 'ok',
      agentName: null
    });
    health.dispose();
  });
});
