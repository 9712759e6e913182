import { describe, expect, it } from 'vitest';
import { PrefixIndex, prefixDistance } from './prefix-index';

// The index against the plainest way to answer the same questions (every text read in turn),
// through thousands of random texts set, changed and removed, with merges in between.

/** A small deterministic random source (tests repeat exactly). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const starts = (text: string) =>
  [...text.matchAll(/(?:^| )(\S)/g)].map((m) => (m.index ?? 0) + m[0].length - 1);

describe('PrefixIndex', () => {
  it('finds what starts with a prefix exactly as a scan does, through changes and merges', async () => {
    const next = random(7);
    const letters = 'abcde';
    const word = () =>
      Array.from(
        { length: 1 + Math.floor(next() * 4) },
        () => letters[Math.floor(next() * letters.length)],
      ).join('');
    // Merges yield every 97 entries, so that changes and searches land in the middle of them.
    const index = new PrefixIndex({ mergeSlice: 97 });
    const texts = new Map<number, string>();
    const compactions: Promise<void>[] = [];
    for (let round = 0; round < 40; round += 1) {
      for (let i = 0; i < 200; i += 1) {
        const slot = Math.floor(next() * 1500);
        if (next() < 0.1) {
          index.set(slot, null, []);
          texts.delete(slot);
        } else {
          const text = `${word()} ${word()}`;
          index.set(slot, text, starts(text));
          texts.set(slot, text);
        }
      }
      // Some rounds are searched while merges are still under way, some while a compaction is
      // (as a sync that finds many renames starts one), with flushes in the middle of it.
      if (round % 5 === 1) compactions.push(index.compact());
      const merging = index.flush();
      if (round % 3 === 0) await merging;
      else await new Promise((resolve) => setImmediate(resolve));
      for (const q of ['a', 'ab', 'bca', 'e', 'dd', 'abcd']) {
        const found = new Map<number, number>();
        index.collect(q, 1e9, found);
        const expected = [...texts]
          .filter(([, t]) => starts(t).some((s) => t.startsWith(q, s)))
          .map(([s]) => s);
        expect([...found.keys()].sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
      }
    }
    await Promise.all(compactions);
    await index.compact();
    // One run left: entries of old texts are gone.
    expect(index.size).toBe([...texts.values()].reduce((n, t) => n + starts(t).length, 0));
  });

  it('finds prefixes longer than the kept keys, across scripts and surrogate pairs, as a scan does', async () => {
    // The keys hold an entry's first six UTF-16 units: prefixes of every length up to and past
    // them, over units from the least a text holds (\u0001) to the greatest, and across merges.
    const next = random(23);
    const units = ['a', 'b', '\u0001', 'ي', '中', '😀', '\uffef'];
    const word = () =>
      Array.from({ length: 1 + Math.floor(next() * 9) }, () => units[Math.floor(next() * units.length)]).join(
        '',
      );
    const index = new PrefixIndex({ mergeSlice: 50 });
    const texts = new Map<number, string>();
    for (let round = 0; round < 12; round += 1) {
      for (let i = 0; i < 150; i += 1) {
        const slot = Math.floor(next() * 600);
        const text = `${word()} ${word()}`;
        index.set(slot, text, starts(text));
        texts.set(slot, text);
      }
      await index.flush();
      const all = [...texts.values()];
      for (let k = 0; k < 40; k += 1) {
        // A prefix of some text's word (found) or a word of its own (mostly not).
        const some = all[Math.floor(next() * all.length)] ?? '';
        const from = starts(some)[Math.floor(next() * 2)] ?? 0;
        const q = next() < 0.7 ? some.slice(from, from + 1 + Math.floor(next() * 9)) : word();
        if (q.trim() === '') continue;
        const found = new Map<number, number>();
        index.collect(q, 1e9, found);
        const expected = [...texts].filter(([, t]) => starts(t).some((s) => t.startsWith(q, s)));
        expect(
          [...found.keys()].sort((a, b) => a - b),
          JSON.stringify(q),
        ).toEqual(expected.map(([slot]) => slot).sort((a, b) => a - b));
        const places = [...texts.values()].reduce(
          (n, t) => n + starts(t).filter((s) => t.startsWith(q, s)).length,
          0,
        );
        if (round === 11) expect(index.count(q), JSON.stringify(q)).toBeGreaterThanOrEqual(places);
      }
    }
    await index.compact();
    for (const q of [
      'a',
      'ab',
      'aba',
      'abab',
      'ababa',
      'ababab',
      'abababa',
      '中😀',
      'ي\u0001',
      '\uffef\uffef',
    ]) {
      const places = [...texts.values()].reduce(
        (n, t) => n + starts(t).filter((s) => t.startsWith(q, s)).length,
        0,
      );
      // After a compaction no stale entry is left: the count is exact.
      expect(index.count(q), JSON.stringify(q)).toBe(places);
    }
  });

  it('finds a word typed with a typo, and not one too far from it', async () => {
    const index = new PrefixIndex();
    const names = ['novahost', 'nova star', 'nightowl', 'novelist'];
    names.forEach((n, slot) => index.set(slot, n, starts(n)));
    await index.flush();
    const near = (q: string, max: number) => {
      const out = new Map<number, number>();
      index.near(q, max, 100, out);
      return [...out.keys()].map((s) => names[s]).sort();
    };
    // "nova st" is one edit from it too (h for the space).
    expect(near('novahst', 1)).toEqual(['nova star', 'novahost']);
    expect(near('novhaost', 1)).toEqual(['novahost']);
    expect(near('nobelist', 1)).toEqual(['novelist']);
    expect(near('nivelost', 1)).toEqual([]);
  });

  it('counts edits as the whole table does, for random words', () => {
    const next = random(11);
    const word = (len: number) => Array.from({ length: len }, () => 'abc'[Math.floor(next() * 3)]).join('');
    /** The full optimal-string-alignment table, min over every prefix of the text. */
    const full = (q: string, t: string) => {
      const d = Array.from({ length: q.length + 1 }, (_, i) =>
        Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
      );
      for (let i = 1; i <= q.length; i += 1)
        for (let j = 1; j <= t.length; j += 1) {
          const row = d[i] ?? [];
          const up = d[i - 1] ?? [];
          let v = Math.min(
            (up[j] ?? 0) + 1,
            (row[j - 1] ?? 0) + 1,
            (up[j - 1] ?? 0) + (q[i - 1] === t[j - 1] ? 0 : 1),
          );
          if (i > 1 && j > 1 && q[i - 1] === t[j - 2] && q[i - 2] === t[j - 1])
            v = Math.min(v, (d[i - 2]?.[j - 2] ?? 0) + 1);
          row[j] = v;
        }
      return Math.min(...(d[q.length] ?? []));
    };
    for (let k = 0; k < 3000; k += 1) {
      const q = word(1 + Math.floor(next() * 7));
      const t = word(Math.floor(next() * 10));
      const max = 1 + Math.floor(next() * 2);
      const expected = Math.min(max + 1, full(q, t));
      expect(prefixDistance(q, `xx ${t}`, 3, max), `${q} in ${t}`).toBe(expected);
      // Told that a first few characters are the same, where they are.
      let same = 0;
      while (same < q.length && same < t.length && q[same] === t[same]) same += 1;
      expect(prefixDistance(q, `xx ${t}`, 3, max, same), `${q} in ${t} (${same} same)`).toBe(expected);
    }
  });

  it('counts the edits that make a query a prefix of a text', () => {
    expect(prefixDistance('nova', 'novahost', 0, 2)).toBe(0);
    expect(prefixDistance('nvoa', 'novahost', 0, 2)).toBe(1);
    expect(prefixDistance('novahst', 'novahost', 0, 2)).toBe(1);
    expect(prefixDistance('host', 'x novahost', 2, 2)).toBe(3);
    expect(prefixDistance('star', 'nova star', 5, 1)).toBe(0);
  });
});
