import { describe, expect, it } from 'vitest';
import { newId, newOrderedId } from '../../server/crypto.ts';

// Record ids: `newId` is uniform random; `newOrderedId` (rewards, webhook events and deliveries,
// jobs) has the same shape but sorts by creation time, so inserts land on the last page of an index.

describe('ids', () => {
  it('newId: 20 uniform characters of a–z and 0–9, never repeated', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect(ids.every((id) => /^[a-z0-9]{20}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Every character of the alphabet shows up at every position over this many ids.
    for (let i = 0; i < 20; i += 7) expect(new Set(ids.map((id) => id[i])).size).toBe(36);
  });

  it('newOrderedId: the same shape, ordered by the millisecond it was made, random within it', async () => {
    const first = Array.from({ length: 200 }, () => newOrderedId());
    await new Promise((r) => setTimeout(r, 5));
    const later = newOrderedId();
    expect([...first, later].every((id) => /^[a-z0-9]{20}$/.test(id))).toBe(true);
    expect(new Set(first).size).toBe(first.length);
    // Lexicographic order (what a text index keeps) follows creation time across milliseconds.
    for (const id of first) expect(id < later).toBe(true);
    expect(parseInt(later.slice(0, 9), 36)).toBeGreaterThanOrEqual(Date.now() - 1000);
  });
});
