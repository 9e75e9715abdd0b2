import { IdleWatch } from '../../transport/idle-watch';

describe('IdleWatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires once after the timeout of silence, each note starting it again', () => {
    const onIdle = jest.fn();
    const watch = new IdleWatch(1000, onIdle);
    watch.note();
    for (let i = 0; i < 5; i++) {
      jest.advanceTimersByTime(900);
      watch.note();
    }
    expect(onIdle).not.toHaveBeenCalled();
    jest.advanceTimersByTime(999);
    expect(onIdle).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
    expect(watch.isDisposed).toBe(true);
    watch.note();
    jest.advanceTimersByTime(5000);
    expect(onIdle).toHaveBeenCalledTimes(1);
    watch.dispose();
  });

  it('keeps one timer however many notes come', () => {
    const watch = new IdleWatch(1000, () => undefined);
    for (let i = 0; i < 1000; i++) {
      watch.note();
    }
    expect(jest.getTimerCount()).toBe(1);
    watch.dispose();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('never fires when disposed, or with a timeout of 0', () => {
    const onIdle = jest.fn();
    const disposed = new IdleWatch(1000, onIdle);
    disposed.note();
    disposed.dispose();
    const off = new IdleWatch(0, onIdle);
    off.note();
    jest.advanceTimersByTime(10_000);
    expect(onIdle).not.toHaveBeenCalled();
    off.dispose();
  });
});
