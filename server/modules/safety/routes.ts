import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okSchema } from '../../../common/api/envelope';
import {
  reportQueueAnswer,
  safetyActBody,
  safetyErrors as errors,
  warningAnswer,
  warningParams,
} from '../../../common/api/safety';
import { requireAuth } from '../auth';
import type { StaffGuard } from '../staff';
import type { SafetyService } from './service';

const done = { 200: okSchema(z.object({})), ...errors };

/** The staff's reports queue and actions, and the warning a person is shown. */
export function safetyRoutes(deps: { safety: SafetyService; staff: StaffGuard }): FastifyPluginAsyncZod {
  const { safety, staff } = deps;
  return async (app) => {
    app.get(
      '/api/v1/staff/reports',
      {
        schema: {
          tags: ['staff'],
          summary: 'Open reports by person and broadcast, newest and most reported first (moderators)',
          response: { 200: okSchema(reportQueueAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'safety.act');
        return { status: 200 as const, data: { list: await safety.queue() } };
      },
    );

    app.post(
      '/api/v1/staff/reports/act',
      {
        schema: {
          tags: ['staff'],
          summary:
            'Dismiss, warn, end the live, suspend from going live, or ban: on a person and their reports, with a note (moderators)',
          body: safetyActBody,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'safety.act');
        await safety.act(actor, req.body);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/me/warning',
      {
        schema: {
          tags: ['me'],
          summary: 'A warning from the team the signed-in person has not read yet',
          response: { 200: okSchema(warningAnswer), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { warning: await safety.warning(requireAuth(req).uid) } };
      },
    );

    app.post(
      '/api/v1/me/warning/:id/seen',
      {
        schema: {
          tags: ['me'],
          summary: 'The person read the warning',
          params: warningParams,
          response: done,
        },
      },
      async (req) => {
        await safety.warningSeen(requireAuth(req).uid, req.params.id);
        return { status: 200 as const, data: {} };
      },
    );
  };
}
