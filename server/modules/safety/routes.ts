import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okSchema } from '../../../common/api/envelope';
import {
  monitorAnswer,
  peopleAnswer,
  peopleQuery,
  personDetailAnswer,
  personNoteBody,
  personParams,
  personResetBody,
  monitorChatAnswer,
  monitorParams,
  monitorQuery,
  reportQueueAnswer,
  safetyActBody,
  sanctionParams,
  safetyErrors as errors,
  warningAnswer,
  warningParams,
} from '../../../common/api/safety';
import { requireAuth } from '../auth';
import type { StaffGuard } from '../staff';
import type { LiveMonitor } from './monitor';
import type { PeopleLookup } from './people';
import type { SafetyService } from './service';

const done = { 200: okSchema(z.object({})), ...errors };

/** The staff's reports queue and actions, and the warning a person is shown. */
export function safetyRoutes(deps: {
  safety: SafetyService;
  monitor: LiveMonitor;
  people: PeopleLookup;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { safety, monitor, people, staff } = deps;
  return async (app) => {
    app.get(
      '/api/v1/staff/people',
      {
        schema: {
          tags: ['staff'],
          summary: 'People by short id, e-mail, phone or the start of a nickname (moderators)',
          querystring: peopleQuery,
          response: { 200: okSchema(peopleAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'safety.act');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await people.find(req.query.q) } };
      },
    );

    app.get(
      '/api/v1/staff/people/:uid',
      {
        schema: {
          tags: ['staff'],
          summary: "Someone's profile, sessions, lives, reports, sanctions, wallet and payee (moderators)",
          params: personParams,
          response: { 200: okSchema(personDetailAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'safety.act');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await people.detail(req.params.uid) };
      },
    );

    app.post(
      '/api/v1/staff/people/:uid/sessions/revoke',
      {
        schema: {
          tags: ['staff'],
          summary: 'Ends every session of someone (and their sockets on every node), with a note',
          params: personParams,
          body: personNoteBody,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'safety.act');
        await people.revokeSessions(actor, req.params.uid, req.body.note);
        return { status: 200 as const, data: {} };
      },
    );

    app.post(
      '/api/v1/staff/people/:uid/sanctions/:id/lift',
      {
        schema: {
          tags: ['staff'],
          summary: 'Lifts a suspension or ban still in force (a mistake, an appeal upheld), with a note',
          params: sanctionParams,
          body: personNoteBody,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'safety.act');
        await safety.lift(actor, req.params.uid, req.params.id, req.body.note);
        return { status: 200 as const, data: {} };
      },
    );

    app.post(
      '/api/v1/staff/people/:uid/reset',
      {
        schema: {
          tags: ['staff'],
          summary: "Replaces someone's inappropriate avatar (none) or nickname (a neutral one), with a note",
          params: personParams,
          body: personResetBody,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'safety.act');
        await people.reset(actor, req.params.uid, req.body.what, req.body.note);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/staff/lives',
      {
        schema: {
          tags: ['staff'],
          summary:
            'The live monitor: every broadcast on air by viewers or open reports, a host found by name or short id',
          querystring: monitorQuery,
          response: { 200: okSchema(monitorAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'safety.act');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await monitor.list(req.query.sort, req.query.q) } };
      },
    );

    app.get(
      '/api/v1/staff/lives/:vid/frame',
      {
        schema: {
          tags: ['staff'],
          summary: 'A still of a broadcast now (JPEG, 320 px wide): taken when asked, kept a few seconds',
          params: monitorParams,
        },
      },
      async (req, reply) => {
        await staff.require(req, 'safety.act');
        const frame = await monitor.frame(req.params.vid);
        return reply.type('image/jpeg').header('cache-control', 'private, no-store').send(frame);
      },
    );

    app.get(
      '/api/v1/staff/lives/:vid/chat',
      {
        schema: {
          tags: ['staff'],
          summary: "A broadcast's latest chat messages, oldest first",
          params: monitorParams,
          response: { 200: okSchema(monitorChatAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'safety.act');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await monitor.chat(req.params.vid) } };
      },
    );

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
