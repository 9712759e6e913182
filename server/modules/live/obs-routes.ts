import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  contentErrors as errors,
  obsAddBody,
  obsModeBody,
  obsPersonParams,
  obsPolicyAnswer,
} from '../../../common/api/content';
import type { StaffGuard } from '../staff';
import type { ObsPolicy } from './obs-policy';

/** Who may broadcast from OBS, in the staff console (content editors). */
export function obsRoutes(deps: { obs: ObsPolicy; staff: StaffGuard }): FastifyPluginAsyncZod {
  const { obs, staff } = deps;
  const answer = { 200: okSchema(obsPolicyAnswer), ...errors };
  return async (app) => {
    app.get(
      '/api/v1/staff/obs',
      {
        schema: {
          tags: ['staff'],
          summary: 'Who may broadcast from OBS (spec obswhitelist): everyone, or the people listed',
          response: answer,
        },
      },
      async (req) => {
        await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await obs.get() };
      },
    );

    app.put(
      '/api/v1/staff/obs',
      {
        schema: {
          tags: ['staff'],
          summary: 'Everyone may broadcast from OBS, or only the people listed',
          body: obsModeBody,
          response: answer,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await obs.setMode(actor, req.body.mode) };
      },
    );

    app.post(
      '/api/v1/staff/obs/people',
      {
        schema: {
          tags: ['staff'],
          summary: 'Lets someone broadcast from OBS while only the people listed may (by short id)',
          body: obsAddBody,
          response: answer,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await obs.add(actor, req.body.short_id) };
      },
    );

    app.delete(
      '/api/v1/staff/obs/people/:uid',
      {
        schema: {
          tags: ['staff'],
          summary: 'Takes someone off the OBS list',
          params: obsPersonParams,
          response: answer,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await obs.remove(actor, req.params.uid) };
      },
    );
  };
}
