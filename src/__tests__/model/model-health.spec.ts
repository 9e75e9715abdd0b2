import {
  HealthMonitor,
  type IHealthStatus
} from '../../model/connection/health-monitor';
import type { IHealthReport } from '../../contracts/transport';

const HEALTHY: IHealthReport = {
  state: 'healthy',
  message: 'Agent ready',
  agentName: 'Demo'
};
const SETUP: IHealthReport = {
  state: 'needs_setup',
  message: 'Install langstage-core',
  agentName: null
};

function monitor(): HealthMonitor {
  return new HealthMonitor({
    healthyIntervalMs: 30000,
    minRetryMs: 1000,
    maxRetryMs: 8000
  });
}

describe('HealthMonitor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('backs off while unhealthy, doubling up to the cap, and relaxes once healthy', async () => {
    const answers = [SETUP, SETUP, SETUP, SETUP, SETUP, HEALTHY];
    const check = jest.fn(async () => answers.shift() ?? HEALTHY);
    const health = monitor();
    health.setTarget(check);
    health.start();
    const delays: (number | null)[] = [];
    for (let i = 0; i < 6; i++) {
      await jest.advanceTimersByTimeAsync(0);
      delays.push(health.nextDelayMs);
      await jest.advanceTimersByTimeAsync(health.nextDelayMs!);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 30000]);
    expect(check).toHaveBeenCalledTimes(7);
    expect(health.status).toEqual({
      state: 'healthy',
      message: 'Agent ready',
      agentName: 'Demo'
    });
    health.dispose();
  });

  it('reports a failing check as unreachable with the reason', async () => {
    const health = monitor();
    health.setTarget(async () => {
      throw new Error('HTTP 404 Not Found from /agent-panel/health');
    });
    health.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(health.status).toEqual({
      state: 'unreachable',
      message: 'HTTP 404 Not Found from /agent-panel/health',
      agentName: null
    });
    health.dispose();
  });

  it('does not poll before start, and checks at once on start', async () => {
    const check = jest.fn(async () => HEALTHY);
    const health = monitor();
    health.setTarget(check);
    await jest.advanceTimersByTimeAsync(60000);
    expect(check).not.toHaveBeenCalled();
    expect(health.status.state).toBe('checking');
    health.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(check).toHaveBeenCalledTimes(1);
    health.dispose();
  });

  it('a new target resets the backoff and ignores the old answer', async () => {
    let resolveOld: (report: IHealthReport) => void = () => undefined;
    const health = monitor();
    health.setTarget(
      () => new Promise<IHealthReport>(resolve => (resolveOld = resolve))
    );
    health.start();
    const seen: IHealthStatus[] = [];
    health.changed.connect((_, status) => seen.push(status));
    health.setTarget(async () => HEALTHY);
    await jest.advanceTimersByTimeAsync(0);
    resolveOld(SETUP);
    await jest.advanceTimersByTimeAsync(0);
    expect(health.status.state).toBe('healthy');
    expect(seen.map(s => s.state)).toEqual(['healthy']);
    health.dispose();
  });

  it('says why there is nothing to check', () => {
    const health = monitor();
    health.setTarget(null, 'No comm transport is available.');
    expect(health.status).toEqual({
      state: 'unconfigured',
      message: 'No comm transport is available.',
      agentName: null
    });
    health.dispose();
  });

  it('dispose stops the planned check', async () => {
    const check = jest.fn(async () => SETUP);
    const health = monitor();
    health.setTarget(check);
    health.start();
    await jest.advanceTimersByTimeAsync(0);
    health.dispose();
    await jest.advanceTimersByTimeAsync(100000);
    expect(check).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
