import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  festivalErrors as errors,
  programmeBody,
  programmeFollowAnswer,
  programmeInfo,
  programmeParams,
  programmeQuery,
  programmesAnswer,
  programmesQuery,
} from '../../../common/api/festival';
import { requireAuth } from '../auth';
import type { StaffGuard } from '../staff';
import type { FestivalService } from './service';

const tags = ['festival'];

/** The festival programme's endpoints; the staff's until the console (issue 24) has a form. */
export function festivalRoutes(deps: {
  festival: FestivalService;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { festival, staff } = deps;
  return async (app) => {
    app.get(
      '/api/v1/programmes',
      {
        schema: {
          tags,
          summary: 'Festival programmes not over yet (spec: expired items leave lists), on now first',
          querystring: programmesQuery,
          response: { 200: okSchema(programmesAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: { list: await festival.list(req.query.locale) } }),
    );

    app.get(
      '/api/v1/programmes/:id',
      {
        schema: {
          tags,
          summary:
            'A programme (spec programme/getByID): its slots with their day in tz, state, live and replay',
          params: programmeParams,
          querystring: programmeQuery,
          response: { 200: okSchema(programmeInfo), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await festival.get(req.params.id, req.query.locale, req.query.tz, req.auth?.uid ?? null),
      }),
    );

    for (const method of ['PUT', 'DELETE'] as const)
      app.route({
        method,
        url: '/api/v1/programmes/:id/follow',
        schema: {
          tags,
          summary:
            method === 'PUT' ? 'Follow a programme: told as each slot starts' : 'Stop following a programme',
          params: programmeParams,
          response: { 200: okSchema(programmeFollowAnswer), ...errors },
        },
        handler: async (req) => ({
          status: 200 as const,
          data: await festival.follow(req.params.id, requireAuth(req).uid, method === 'PUT'),
        }),
      });

    app.post(
      '/api/v1/staff/programmes',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: a new programme (names by language, English required; slots of host and times)',
          body: programmeBody,
          response: { 200: okSchema(programmeInfo), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        const id = await festival.save(actor.uid, null, req.body, (tx, made) =>
          staff.audit(actor, 'programme.create', `programme:${made}`, undefined, req.body, null, tx),
        );
        return { status: 200 as const, data: await festival.get(id, 'en', undefined, actor.uid) };
      },
    );

    app.put(
      '/api/v1/staff/programmes/:id',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: replace a programme’s names and schedule (unchanged slots keep their state)',
          params: programmeParams,
          body: programmeBody,
          response: { 200: okSchema(programmeInfo), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        await festival.save(actor.uid, req.params.id, req.body, (tx, id) =>
          staff.audit(actor, 'programme.update', `programme:${id}`, undefined, req.body, null, tx),
        );
        return { status: 200 as const, data: await festival.get(req.params.id, 'en', undefined, actor.uid) };
      },
    );

    app.delete(
      '/api/v1/staff/programmes/:id',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: delete a programme',
          params: programmeParams,
          response: { 200: okSchema(programmeParams), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        await festival.remove(req.params.id, (tx) =>
          staff.audit(
            actor,
            'programme.delete',
            `programme:${req.params.id}`,
            undefined,
            undefined,
            null,
            tx,
          ),
        );
        return { status: 200 as const, data: { id: req.params.id } };
      },
    );
  };
}
