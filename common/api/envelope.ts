import { z } from 'zod';

/** Zod schema of a success envelope around `data` (spec §7: HTTP 200 and body status 200). */
export function okSchema<T extends z.ZodType>(data: T) {
  return z.object({ status: z.literal(200), data });
}

/** Every failure body (common/errors.ts ErrorBody): the status, the spec's code, a name, a message. */
export const errorSchema = z.object({
  status: z.number().int(),
  code: z.number().int(),
  error: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

/** The error answers an operation may give, by status: each is the error envelope. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof errorSchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorSchema])) as Record<S, typeof errorSchema>;
}

/** What a value is once it went through JSON: dates arrive as ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** The `data` a route answers, as the browser reads it (derived from the route's schema). */
export type Answer<S extends z.ZodType> = Json<z.output<S>>;

/** What the browser sends as a body or query: the schema's input (defaults may be left out). */
export type Request<S extends z.ZodType> = z.input<S>;

/** Request ids that make a retry safe: the same key does the thing once. */
export const idempotencyKey = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

/** A broadcast's id in paths and bodies that take any shape of vid (4 to 32 letters and digits). */
export const anyVid = z.string().regex(/^[A-Za-z0-9]{4,32}$/);
