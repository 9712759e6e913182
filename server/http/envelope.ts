import { z } from 'zod';
import { AppError, ERRORS, type ErrorBody, type ErrorName } from '../../common/errors';
import type { Locale } from '../../common/locales';
import { translate } from '../i18n';

/** Success body of the API envelope (spec §7: HTTP 200 and body status 200). */
export function ok<T>(data: T): { status: 200; data: T } {
  return { status: 200, data };
}

// The envelope's schemas are the API contract's (common/api); routes and OpenAPI use them.
export { errorSchema, okSchema } from '../../common/api/envelope';

/**
 * A reply serializer (`reply.serializer(…)`) for success answers whose data is kept in memory and
 * sent many times (a cached page): the JSON is made once per data object, checked against the
 * schema as the route's own serializer would, instead of on every request. The data must not
 * change afterwards: kept values are replaced, never edited.
 */
export function serializeOnce(schema: z.ZodType): (payload: { status: 200; data: object }) => string {
  const made = new WeakMap<object, string>();
  return (payload) => {
    let json = made.get(payload.data);
    if (json === undefined) {
      json = JSON.stringify(z.encode(schema, payload));
      made.set(payload.data, json);
    }
    return json;
  };
}

/** Failure body in the reader's language. */
export function errorBody(name: ErrorName, locale: Locale, details?: unknown): ErrorBody {
  const def = ERRORS[name];
  const body: ErrorBody = {
    status: def.http,
    code: def.code,
    error: name,
    message: translate(locale, `error.${name}`),
  };
  if (details !== undefined) body.details = details;
  return body;
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { validation?: unknown; statusCode?: number; code?: string };
  if (e.validation) return new AppError('validation_failed', e.validation);
  if (e.statusCode === 413 || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new AppError('payload_too_large');
  // Plugins' refusals: the static files answer 403 for paths outside their folder ('.', '..',
  // names too long): to the caller that is a file that does not exist.
  if (e.statusCode === 403 || e.statusCode === 404) return new AppError('not_found');
  if (e.statusCode === 405) return new AppError('method_not_allowed');
  if (e.statusCode === 429) return new AppError('too_many_requests');
  // Any other refusal of the request itself (400, 415, 431, …) is bad input, never a server fault.
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)
    return new AppError('validation_failed');
  return new AppError('internal');
}
