import fc from 'fast-check';

/**
 * Request fuzzing from the OpenAPI document (server/fuzz.test.ts): JSON Schema → fast-check
 * arbitraries, the hostile values every field gets, and the URL encoding that can carry them.
 */

/** The parts of JSON Schema (as @fastify/swagger writes it from zod) the fuzzer reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** 1 MiB: over every body limit (a 413), and far over every field's maximum. */
export const ONE_MB = 'x'.repeat(1 << 20);

/**
 * Strings that have broken servers: NUL (PostgreSQL text cannot hold it), lone surrogates (not
 * UTF-8), bidi and zero-width controls, the long, the empty, numbers and paths in disguise.
 */
export const NASTY_STRINGS: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udc00b',
  '\u202egnp.exe',
  '\u2066x\u2069',
  'a\u200bb\u200dc',
  '',
  '  ',
  '\r\n',
  'y'.repeat(100_000),
  ONE_MB,
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '👨‍👩‍👧',
  '-1',
  '1e309',
  'NaN',
  '99999999999999999999999',
  '%00',
];

export const NASTY_NUMBERS: readonly number[] = [
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 63,
  -(2 ** 63),
  Number.MAX_SAFE_INTEGER,
];

/**
 * The values every single field gets in turn (the rest of the request valid): one of each kind
 * above, so that a field-by-field pass stays a few thousand requests.
 */
export const FIELD_VALUES: readonly unknown[] = [
  'a\u0000b',
  '\ud800',
  '\u202egnp.exe\u200b',
  'y'.repeat(100_000),
  ONE_MB,
  "' OR 1=1 --",
  -1,
  1e308,
  -(2 ** 63),
  null,
  [],
  { $ne: null },
];

/** Fewer values for fields inside objects (a device's fifteen signals need not get all of them). */
export const NESTED_VALUES: readonly unknown[] = [
  'a\u0000b',
  '\ud800',
  'y'.repeat(100_000),
  -1e308,
  null,
  {},
];

/** Values of the wrong type for any field. */
export const WRONG_TYPES: readonly unknown[] = [null, true, [], {}, ['\u0000'], { $ne: null }];

export const NASTY_VALUES: readonly unknown[] = [...NASTY_STRINGS, ...NASTY_NUMBERS, ...WRONG_TYPES];

/** Nasty values without the 1 MiB string (random samples stay cheap; the field pass sends it). */
const nastyLeaf = fc.constantFrom(...NASTY_VALUES.filter((v) => v !== ONE_MB));

function typesOf(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  if (s.properties) return ['object'];
  return [];
}

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  if (s.pattern) {
    try {
      return fc.stringMatching(new RegExp(s.pattern, 'u'));
    } catch {
      // A pattern fast-check cannot generate from: any string.
    }
  }
  const minLength = s.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(s.maxLength ?? 24, 24)) });
}

function numberArb(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
  const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000);
  const min = Math.max(lo, -Number.MAX_SAFE_INTEGER);
  const max = Math.min(Math.max(hi, min), Number.MAX_SAFE_INTEGER);
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true });
}

/**
 * Values shaped as the schema says (so a request gets past validation and into the handler), with
 * `leaf` deciding what each scalar becomes: the schema's own (valid) values, or sometimes nasty ones.
 */
function arb(s: JsonSchema, hostile: boolean, depth = 0): fc.Arbitrary<unknown> {
  const variants = s.anyOf ?? s.oneOf;
  if (variants?.length) return fc.oneof(...variants.map((v) => arb(v, hostile, depth)));
  const own = ownArb(s, hostile, depth);
  if (!hostile) return own;
  // Objects and arrays keep their shape (their children are hostile); scalars turn nasty a third of the time.
  const scalar = !typesOf(s).some((t) => t === 'object' || t === 'array');
  return scalar ? fc.oneof({ arbitrary: own, weight: 2 }, { arbitrary: nastyLeaf, weight: 1 }) : own;
}

function ownArb(s: JsonSchema, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const types = typesOf(s);
  if (!types.length) return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((t): fc.Arbitrary<unknown> => {
      switch (t) {
        case 'string':
          return stringArb(s);
        case 'integer':
          return numberArb(s, true);
        case 'number':
          return numberArb(s, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array': {
          if (s.prefixItems) return fc.tuple(...s.prefixItems.map((p) => arb(p, hostile, depth + 1)));
          const item = s.items ? arb(s.items, hostile, depth + 1) : fc.jsonValue({ maxDepth: 1 });
          const minLength = s.minItems ?? 0;
          return fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 4, 4)) });
        }
        default: {
          const props = s.properties ?? {};
          const model = Object.fromEntries(
            Object.entries(props).map(([k, v]) => [k, arb(v, hostile, depth + 1)]),
          );
          // Hostile objects lose required fields and gain unknown ones now and then.
          const record = fc.record(model, { requiredKeys: hostile ? [] : (s.required ?? []) });
          if (!hostile) return record;
          return fc
            .tuple(record, fc.option(fc.tuple(fc.string({ maxLength: 8 }), nastyLeaf)))
            .map(([r, extra]) => (extra ? { ...r, [extra[0]]: extra[1] } : r));
        }
      }
    }),
  );
}

/** `n` values that match `s`, the same ones for the same seed. */
export function validSamples(s: JsonSchema, seed: number, n: number): unknown[] {
  return fc.sample(arb(s, false), { seed, numRuns: n });
}

/** `n` values shaped like `s` with hostile leaves, missing fields and extra ones. */
export function hostileSamples(s: JsonSchema, seed: number, n: number): unknown[] {
  return fc.sample(arb(s, true), { seed, numRuns: n });
}

/** The paths of a schema's object fields (nested objects too, a few levels down). */
export function fieldPaths(s: JsonSchema, prefix: string[] = [], depth = 0): string[][] {
  if (depth > 3 || !s.properties) return [];
  return Object.entries(s.properties).flatMap(([k, v]) => [
    [...prefix, k],
    ...fieldPaths(v, [...prefix, k], depth + 1),
  ]);
}

/** A copy of `value` with the field at `path` set to `to` (made an object along the way if need be). */
export function withField(value: unknown, path: readonly string[], to: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return to;
  const obj =
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { ...obj, [head]: withField(obj[head], rest, to) };
}

/**
 * Percent-encodes text for a URL, lone surrogates included (as the bytes a careless encoder writes
 * for them, which are not UTF-8: exactly what a server must survive).
 */
export function encodeUrlPart(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!/\p{Cs}/u.test(text)) return encodeURIComponent(text);
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Path segments written raw (already encoded, or deliberately badly encoded). */
export const RAW_SEGMENTS: readonly string[] = [
  '%00',
  '..',
  '%2e%2e',
  '.',
  '%2F',
  '%5C',
  '%',
  '%zz',
  '%c0%af',
  '%ED%A0%80',
  '%E2%80%AE',
  '%EF%BB%BF',
  'a%00.html',
  '-1',
  '0',
  '99999999999999999999999999',
  '1e309',
  'NaN',
  'x'.repeat(2000),
];
