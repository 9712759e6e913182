import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okSchema } from '../../../common/api/envelope';
import {
  exploreAnswer,
  exploreCountriesAnswer,
  exploreErrors as errors,
  exploreQuery,
  hostMarksAnswer,
  hostMarksSchema,
  hostParams,
  watchedAnswer,
  watchedParams,
} from '../../../common/api/explore';
import { hostLookupAnswer, hostLookupQuery } from '../../../common/api/content';
import { sharedAnswer } from '../../http/shared-answer';
import { requireAuth } from '../auth';
import type { StaffGuard } from '../staff';
import type { DiscoveryService } from './service';
import type { WatchHistory } from './watched';

/** Explore's lists and country list (spec §2, §7), and the staff's marks on hosts. */
export function discoveryRoutes(deps: {
  discovery: DiscoveryService;
  watched: WatchHistory;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { discovery } = deps;
  const send = sharedAnswer(okSchema(exploreAnswer));
  const sendCountries = sharedAnswer(okSchema(exploreCountriesAnswer));
  return async (app) => {
    app.get(
      '/api/v1/explore',
      {
        schema: {
          tags: ['discovery'],
          summary:
            'Broadcasts on air by tab (hot, follow, global, star, game, new), filter and country, 20 a page (spec live/featurelist, girls, boys, getVideoList, gVideoList, getUserFollowersVideo)',
          querystring: exploreQuery,
          response: { 200: okSchema(exploreAnswer), ...errors },
        },
      },
      async (req, reply) => {
        // Pages are kept for a refresh and sent to many: their JSON is made (and compressed) once.
        return send(req, reply, await discovery.explore(req.query, req.auth?.uid ?? null));
      },
    );

    app.get(
      '/api/v1/explore/countries',
      {
        schema: {
          tags: ['discovery'],
          summary: 'Countries with hosts on air, most first (spec GlobalMain/getInterCountryList)',
          response: { 200: okSchema(exploreCountriesAnswer) },
        },
      },
      async (req, reply) => {
        // One list per refresh, sent to everyone who opens explore: made (and compressed) once.
        const list = await discovery.countries();
        return sendCountries(req, reply, { list }, list);
      },
    );

    app.post(
      '/api/v1/watched/:vid',
      {
        schema: {
          tags: ['discovery'],
          summary: "The reader's player started playing a broadcast: kept in their recently watched",
          params: watchedParams,
          response: { 200: okSchema(z.object({})), ...errors },
        },
      },
      async (req) => {
        await deps.watched.record(requireAuth(req).uid, req.params.vid);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/watched',
      {
        schema: {
          tags: ['discovery'],
          summary:
            'Hosts the reader watched lately, newest first, and whether they are live (spec live/getRecentlyVideo)',
          response: { 200: okSchema(watchedAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await deps.watched.list(requireAuth(req).uid) }),
    );

    app.get(
      '/api/v1/staff/hosts',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: people by short id or nickname with their marks, to curate explore',
          querystring: hostLookupQuery,
          response: { 200: okSchema(hostLookupAnswer), ...errors },
        },
      },
      async (req) => {
        await deps.staff.require(req, 'content.edit');
        return { status: 200 as const, data: { list: await discovery.hosts(req.query.q) } };
      },
    );

    app.put(
      '/api/v1/staff/hosts/:uid/marks',
      {
        schema: {
          tags: ['staff'],
          summary: "Staff: a host's marks (official, star, featured, fashion house) for explore",
          params: hostParams,
          body: hostMarksSchema,
          response: { 200: okSchema(hostMarksAnswer), ...errors },
        },
      },
      async (req) => {
        const staff = await deps.staff.require(req, 'content.edit');
        const marks = req.body;
        await discovery.setMarks(staff.uid, req.params.uid, marks, (tx, before) =>
          deps.staff.audit(staff, 'host.marks', `user:${req.params.uid}`, before, marks, null, tx),
        );
        return { status: 200 as const, data: { uid: req.params.uid, marks } };
      },
    );
  };
}
