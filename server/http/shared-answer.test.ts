import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { okSchema } from '../../common/api/envelope';
import { exploreAnswer, exploreCountriesAnswer, type ExploreCard } from '../../common/api/explore';
import { searchAnswer, type SearchPerson } from '../../common/api/search';
import { jsonWriter } from './shared-answer';

/** Texts JSON must escape or carry as they are: quotes, backslashes, controls, scripts, emoji. */
const TEXTS = [
  '',
  'Nova',
  'say "hi"',
  'back\\slash',
  'line\nbreak\ttab\u0001',
  'نور أحمد',
  '直播小王子',
  '🎤 live',
  '</script>',
];

const person = (i: number): SearchPerson & { extra: string } => ({
  uid: 1000 + i,
  short_id: String(10000000 + i),
  nickname: TEXTS[i % TEXTS.length] ?? '',
  face: i % 2 ? null : `/media/faces/${i}.webp`,
  country: 'EG',
  followers: i * 1_000_003,
  live: i % 3 ? null : `vid${i}`,
  // Not in the schema: neither zod's encode nor the writer sends it.
  extra: 'secret',
});

const card = (i: number): ExploreCard => ({
  vid: `xxxxxxxx${i}`,
  title: TEXTS[(i + 3) % TEXTS.length] ?? '',
  cover: i % 2 ? null : `/media/covers/${i}.webp`,
  orientation: i % 2 ? 'portrait' : 'landscape',
  kind: i % 4 ? 'video' : 'audio',
  category: 'chat',
  viewers: i * 37,
  started_at: new Date(Date.UTC(2026, 10, 30, 18, i)).toISOString(),
  host: {
    uid: 2000 + i,
    short_id: String(20000000 + i),
    nickname: TEXTS[i % TEXTS.length] ?? '',
    face: null,
    country: 'BR',
  },
  marks: { official: i % 2 === 0, star: i % 3 === 0, featured: false, fashion: true },
  newcomer: i % 2 === 1,
});

/** What the routes' own serializer (zod's encode, then JSON) makes of a value. */
const byZod = (schema: z.ZodType, value: unknown) => JSON.stringify(z.encode(schema, value));

describe('jsonWriter', () => {
  it('writes search answers as zod would', () => {
    const schema = okSchema(searchAnswer);
    const write = jsonWriter(schema);
    for (let n = 0; n <= 10; n += 1) {
      const value = {
        status: 200,
        data: {
          q: TEXTS[n % TEXTS.length] ?? '',
          people: { list: Array.from({ length: n }, (_, i) => person(n + i)), more: n % 2 === 0 },
          lives: { list: Array.from({ length: 10 - n }, (_, i) => card(n + i)), more: n % 3 === 0 },
        },
      };
      expect(write(value)).toBe(byZod(schema, value));
    }
  });

  it("writes explore's pages and countries as zod would", () => {
    const pages = okSchema(exploreAnswer);
    const countries = okSchema(exploreCountriesAnswer);
    for (const next of [null, 'cursor"1']) {
      const value = { status: 200, data: { list: Array.from({ length: 20 }, (_, i) => card(i)), next } };
      expect(jsonWriter(pages)(value)).toBe(byZod(pages, value));
    }
    const value = {
      status: 200,
      data: {
        list: [
          { country: 'BR', lives: 3 },
          { country: 'EG', lives: 0 },
        ],
      },
    };
    expect(jsonWriter(countries)(value)).toBe(byZod(countries, value));
    expect(jsonWriter(countries)({ status: 200, data: { list: [] } })).toBe(
      '{"status":200,"data":{"list":[]}}',
    );
  });
});
