import { RequestExpiry } from '../../model/conversation/chat/request-expiry';
import type { IInterruptCard } from '../../wire/types';

/** A request card that expires `inMs` from now (fake time). */
function card(key: number, inMs: number): IInterruptCard {
  return {
    kind: 'interrupt',
    key,
    actions: [],
    allowedDecisions: [],
    interruptIds: [`i-${key}`],
    answered: null,
    request: {
      reason: 'input_required',
      message: null,
      responseSchema: null,
      expiresAt: new Date(Date.now() + inMs).toISOString(),
      toolCallId: null
    }
  };
}

describe('RequestExpiry', () => {
  let expired: IInterruptCard[][];
  let expiry: RequestExpiry;

  beforeEach(() => {
    jest.useFakeTimers();
    expired = [];
    expiry = new RequestExpiry(cards => expired.push(cards));
  });

  afterEach(() => {
    expiry.dispose();
    jest.useRealTimers();
  });

  it('tells the cards watched when the first of them expires', () => {
    const cards = [card(1, 500), card(2, 100)];
    expiry.watch(cards);
    jest.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(expired).toEqual([cards]);
  });

  it('watches only the cards watched last', () => {
    expiry.watch([card(1, 100)]);
    const later = [card(2, 300)];
    expiry.watch(later);
    jest.advanceTimersByTime(1000);
    expect(expired).toEqual([later]);
  });

  it('sets no timer for cards that never expire', () => {
    const review = { ...card(1, 0), request: undefined };
    expiry.watch([review]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops looking when disposed', () => {
    expiry.watch([card(1, 100)]);
    expiry.dispose();
    expect(expiry.isDisposed).toBe(true);
    jest.advanceTimersByTime(1000);
    expect(expired).toEqual([]);
    expiry.watch([card(2, 100)]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
