import { beforeEach, describe, expect, it, vi } from 'vitest';

const api = vi.fn();
vi.mock('../lib/api', () => ({ api: (...args: unknown[]) => api(...args) as unknown }));
const { FollowStore } = await import('./follow-store');

describe('FollowStore', () => {
  beforeEach(() => api.mockReset());

  it('asks once per person, and every reader of that person sees a follow made anywhere', async () => {
    api.mockResolvedValue({ relation: 0, follower_count: 7, following_count: 1 });
    const store = new FollowStore();
    const seen: unknown[] = [];
    store.subscribe(() => seen.push(store.get(1, 9)));
    const [a, b] = await Promise.all([store.load(1, 9), store.load(1, 9)]);
    expect(api).toHaveBeenCalledTimes(1);
    expect(a).toBe(b);
    expect(a).toMatchObject({ relation: 0, followers: 7 });
    // A follow from another button (the answer carries the person's new count).
    store.apply(1, 9, { relation: 50008, follower_count: 8, following_count: 1 });
    expect(store.get(1, 9)).toMatchObject({ relation: 50008, followers: 8 });
    expect(seen.at(-1)).toBe(store.get(1, 9));
    // Known now: no second request.
    await store.load(1, 9);
    expect(api).toHaveBeenCalledTimes(1);
  });

  it('keeps what a follow said over an older answer, and a card only fills in what is unknown', async () => {
    let answer: (v: unknown) => void = () => undefined;
    api.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const store = new FollowStore();
    const loading = store.load(1, 9);
    store.apply(1, 9, { relation: 50008, follower_count: 8, following_count: 0 });
    answer({ relation: 0, follower_count: 7, following_count: 0 });
    expect(await loading).toMatchObject({ relation: 50008, followers: 8 });
    store.seed(1, 9, { relation: 0, followers: 3 });
    expect(store.get(1, 9)).toMatchObject({ relation: 50008, followers: 8 });
    store.seed(1, 5, { relation: 50001, followers: 3 });
    expect(store.get(1, 5)).toMatchObject({ relation: 50001, followers: 3 });
  });

  it('keeps each reader apart (signing in or out starts over) and retries a failed load', async () => {
    api.mockRejectedValueOnce(new Error('offline'));
    const store = new FollowStore();
    store.apply(1, 9, { relation: 50008, follower_count: 8, following_count: 0 });
    expect(store.get(2, 9)).toMatchObject({ relation: null, followers: null });
    await expect(store.load(2, 9)).rejects.toThrow('offline');
    api.mockResolvedValueOnce({ relation: 0, follower_count: 8, following_count: 0 });
    expect(await store.load(2, 9)).toMatchObject({ relation: 0 });
  });
});
