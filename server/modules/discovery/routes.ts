import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  exploreAnswer,
  exploreCountriesAnswer,
  exploreErrors as errors,
  exploreQuery,
  hostMarksAnswer,
  hostMarksSchema,
  hostParams,
} from '../../../common/api/explore';
import type { Db } from '../../db/client';
import { serializeOnce } from '../../http/envelope';
import { requireStaff } from '../staff';
import type { DiscoveryService } from './service';

/** Explore's lists and country list (spec §2, §7), and the staff's marks on hosts. */
export function discoveryRoutes(deps: {
  discovery: DiscoveryService;
  db: Db;
  staffEmails: readonly string[];
}): FastifyPluginAsyncZod {
  const { discovery } = deps;
  const json = serializeOnce(okSchema(exploreAnswer));
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
        const data = await discovery.explore(req.query, req.auth?.uid ?? null);
        // Pages are kept for a refresh and sent to many: their JSON is made once.
        void reply.serializer(json);
        return { status: 200 as const, data };
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
      async () => ({ status: 200 as const, data: { list: await discovery.countries() } }),
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
        const staff = await requireStaff(req, deps.db, deps.staffEmails);
        const marks = await discovery.setMarks(staff, req.params.uid, req.body);
        return { status: 200 as const, data: { uid: req.params.uid, marks } };
      },
    );
  };
}
