import type { FastifyReply, FastifyRequest } from 'fastify';
import fastJson, { type ObjectSchema } from 'fast-json-stringify';
import { z } from 'zod';
import { CompressedBody, pickEncoding } from './compress';

/** Smaller answers are sent as they are: compressing them saves less than its own cost. */
const COMPRESS_FROM = 1024;
/**
 * An answer is compressed once it is sent this many times: search answers asked once or twice (most
 * of them) cost more to compress than their sending does here; explore's pages are sent thousands
 * of times.
 */
const COMPRESS_AT = 3;

interface Kept {
  body: CompressedBody;
  sent: number;
}

/**
 * Sends success answers whose data is kept in memory and sent to many (explore's pages, search
 * results as people type): the JSON is made once per data object, by a writer compiled from the
 * schema (`jsonWriter`), and from its third sending on it is also kept compressed
 * (brotli or gzip, whichever the client accepts). A page of 20 explore cards is 7 KB of JSON and
 * 1 KB compressed: on a phone's network that is the wait, and on this machine writing and reading
 * the 7 KB cost the server and its clients half their answers a second (docs/decisions.md, "Discovery").
 * The data must not change afterwards: kept values are replaced, never edited.
 */
export function sharedAnswer(
  schema: z.ZodType,
): (req: FastifyRequest, reply: FastifyReply, data: object, key?: object) => FastifyReply {
  const made = new WeakMap<object, Kept>();
  const write = jsonWriter(schema);
  // `key`: the kept value the data is made from, when the data itself is made afresh each time.
  return (req, reply, data, key = data) => {
    let kept = made.get(key);
    if (kept === undefined) {
      kept = { body: new CompressedBody(write({ status: 200, data })), sent: 0 };
      made.set(key, kept);
    }
    kept.sent += 1;
    const encoding =
      kept.sent >= COMPRESS_AT && kept.body.text.length >= COMPRESS_FROM
        ? pickEncoding(req.headers['accept-encoding'])
        : 'identity';
    void reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
    if (encoding !== 'identity') void reply.header('content-encoding', encoding);
    return reply.send(kept.body.get(encoding));
  };
}

/**
 * The schema's JSON: fast-json-stringify compiled from the schema's JSON Schema (what it
 * outputs). Search answers are made afresh for most queries, and zod's encode then
 * JSON.stringify cost twice this writer (40 against 20 µs for five people and five rooms). It
 * writes what the schema names and nothing else, as zod's encode keeps; unlike zod it does not
 * check values, so the data must be typed by the schema (the routes' types make sure), and
 * shared-answer.test.ts checks that both give the same JSON. A schema JSON Schema cannot say
 * (dates, transforms) throws here, as the route is made.
 */
export function jsonWriter(schema: z.ZodType): (value: object) => string {
  return fastJson(z.toJSONSchema(schema, { io: 'output' }) as ObjectSchema);
}
