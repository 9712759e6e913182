import { Stream } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../common/errors';
import { isStorable } from '../../common/text';

/**
 * Whether every string (and object key) in a parsed request part is storable; walks without
 * recursion. Bytes and streams are not looked into: an upload's body is its request stream, whose
 * own fields lead back to the request and on without end.
 */
function allStorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isStorable(v)) return false;
    } else if (Array.isArray(v)) {
      for (const inner of v as unknown[]) stack.push(inner);
    } else if (v && typeof v === 'object' && !Buffer.isBuffer(v) && !(v instanceof Stream)) {
      for (const [k, inner] of Object.entries(v)) {
        if (!isStorable(k)) return false;
        stack.push(inner);
      }
    }
  }
  return true;
}

/**
 * One check for every route, before any handler or schema sees the request: a decoded path
 * parameter, query parameter or body string holding NUL or a lone surrogate is refused with 400
 * `invalid_characters`. PostgreSQL text cannot hold U+0000 (every such value used to reach a query
 * and answer 500), and a lone surrogate would be stored as U+FFFD, silently changed. Raw bodies
 * (images, signed webhooks, SDP) are documents for their own parsers and are not looked at.
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (!allStorable(req.params)) throw new AppError('invalid_characters', { in: 'path' });
    if (!allStorable(req.query)) throw new AppError('invalid_characters', { in: 'query' });
    // A body parsed into fields (JSON, forms); a body that is one document (SDP, text) is its parser's.
    if (typeof req.body !== 'string' && !allStorable(req.body))
      throw new AppError('invalid_characters', { in: 'body' });
  });
}
