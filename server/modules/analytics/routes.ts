import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  analyticsAnswer,
  analyticsErrors as errors,
  analyticsQuery,
  collectBody,
} from '../../../common/api/analytics';
import { CONSENT_ALL, CONSENT_COOKIE } from '../../../common/analytics';
import { okSchema } from '../../../common/api/envelope';
import { AppError } from '../../../common/errors';
import type { StaffGuard } from '../staff';
import type { AnalyticsService } from './service';

/** A batch of 50 events is a few kB; the limit keeps a flood of large bodies cheap to refuse. */
const BODY_LIMIT = 32 * 1024;
const MAX_DAYS = 92;

/**
 * The collector (POST /api/v1/collect) and the staff's daily numbers. The collector answers 204
 * before anything is written, acts as nobody (no session is looked up, server/modules/auth/context.ts)
 * and keeps nothing of a reader who has not accepted analytics cookies, whatever the page sent.
 */
export function analyticsRoutes(deps: {
  analytics: AnalyticsService;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { analytics } = deps;
  return async (app) => {
    // navigator.sendBeacon sends text/plain (a type that needs no preflight): JSON all the same.
    app.addContentTypeParser(
      'text/plain',
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_req, body, done) => {
        try {
          done(null, JSON.parse(body as string));
        } catch {
          done(new AppError('validation_failed'), undefined);
        }
      },
    );

    app.post(
      '/api/v1/collect',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags: ['analytics'],
          summary:
            'First-party analytics: a batch of up to 50 events (et: page_view, register_click, login_failed) with the protocol version v; kept only with the analytics cookie consent; identifiers hashed',
          body: collectBody,
          response: { 204: z.null(), ...errors },
        },
      },
      async (req, reply) => {
        const cookies = (req.cookies as Record<string, string | undefined> | undefined) ?? {};
        if (cookies[CONSENT_COOKIE] === CONSENT_ALL) analytics.collect(req.body);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/api/v1/staff/analytics',
      {
        schema: {
          tags: ['staff'],
          summary:
            'Staff: daily numbers (visitors, page views, register clicks, sign-ups and login failures by way, go-lives, gifts, recharge conversion), from and to inclusive',
          querystring: analyticsQuery,
          response: { 200: okSchema(analyticsAnswer), ...errors },
        },
      },
      async (req) => {
        await deps.staff.require(req, 'analytics.read');
        const { from, to } = req.query;
        const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
        if (days < 0 || days >= MAX_DAYS) throw new AppError('validation_failed', { field: 'to' });
        return {
          status: 200 as const,
          data: { utcOffset: analytics.utcOffset, days: await analytics.daily(from, to) },
        };
      },
    );
  };
}
