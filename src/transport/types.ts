/** `fetch` as transports use it, injectable for tests. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
