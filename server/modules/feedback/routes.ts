import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  feedbackAnswer,
  feedbackBody,
  feedbackErrors as errors,
  feedbackListAnswer,
  feedbackListQuery,
  feedbackParams,
} from '../../../common/api/feedback';
import { FEEDBACK_SCREENSHOT_MAX_BYTES } from '../../../common/feedback';
import type { MetaReader } from '../auth';
import type { StaffGuard } from '../staff';
import type { FeedbackService } from './service';

const tags = ['feedback'];
/** The form's JSON with a screenshot of up to 5 MB as base64 (4/3 of it) and the rest. */
const BODY_LIMIT = Math.ceil((FEEDBACK_SCREENSHOT_MAX_BYTES * 4) / 3) + 64 * 1024;

/** The feedback form's endpoint, and the staff's inbox until the console (issue 24) shows it. */
export function feedbackRoutes(deps: {
  feedback: FeedbackService;
  meta: MetaReader;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { feedback } = deps;
  return async (app) => {
    app.post(
      '/api/v1/feedback',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags,
          summary:
            'Feedback or a suggestion (spec §2): a category, up to 1,000 characters, an optional screenshot and contact; signed in or not',
          body: feedbackBody,
          response: { 200: okSchema(feedbackAnswer), ...errors },
        },
      },
      async (req) => {
        const meta = deps.meta(req);
        const id = await feedback.send(
          {
            uid: req.auth?.uid ?? null,
            ip: meta.ip,
            deviceId: meta.deviceId,
            userAgent: meta.userAgent ?? '',
          },
          req.body,
        );
        return { status: 200 as const, data: { id } };
      },
    );

    app.get(
      '/api/v1/staff/feedback',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: feedback, newest first, 50 a page (before: the last id seen)',
          querystring: feedbackListQuery,
          response: { 200: okSchema(feedbackListAnswer), ...errors },
        },
      },
      async (req) => {
        await deps.staff.require(req, 'feedback.read');
        const { list, next } = await feedback.list(req.query);
        return {
          status: 200 as const,
          data: {
            list: list.map(({ has_screenshot, ...row }) => ({
              ...row,
              screenshot: has_screenshot ? `/api/v1/staff/feedback/${row.id}/screenshot` : null,
            })),
            next,
          },
        };
      },
    );

    app.get(
      '/api/v1/staff/feedback/:id/screenshot',
      {
        schema: {
          tags: ['staff'],
          summary: "Staff: a feedback message's screenshot (WebP)",
          params: feedbackParams,
        },
      },
      async (req, reply) => {
        await deps.staff.require(req, 'feedback.read');
        const bytes = await feedback.screenshot(req.params.id);
        // Someone's screen: never kept by a shared cache.
        return reply.type('image/webp').header('cache-control', 'private, no-store').send(bytes);
      },
    );
  };
}
