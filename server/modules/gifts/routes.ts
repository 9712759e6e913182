import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchema, okSchema } from '../../http/envelope';
import { requireAuth } from '../auth';
import type { UsersService } from '../users';
import { MAX_COMBO, type GiftService } from './service';

const errors = {
  400: errorSchema,
  401: errorSchema,
  402: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  422: errorSchema,
};

/** Gifts (spec giftV2): the wall, stickers, sending, and what a host received. */
export function giftRoutes(deps: {
  gifts: GiftService;
  users: Pick<UsersService, 'name'>;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/gifts',
      {
        schema: {
          tags: ['gifts'],
          summary:
            'The gift wall (spec giftV2/liveGiftList): only gifts that can be sent and shown (spec §4: video)',
          response: {
            200: okSchema(
              z.object({
                list: z.array(
                  z.object({
                    gift_id: z.number(),
                    name: z.string(),
                    price: z.number(),
                    format: z.enum(['video', 'lottie']),
                    media_url: z.string().nullable(),
                    icon_url: z.string().nullable(),
                  }),
                ),
              }),
            ),
          },
        },
      },
      async () => ({ status: 200 as const, data: { list: await deps.gifts.wall() } }),
    );

    app.get(
      '/api/v1/gifts/stickers',
      {
        schema: {
          tags: ['gifts'],
          summary: 'The sticker set viewers post in the chat (spec giftV2H5/giftStickers)',
          response: {
            200: okSchema(
              z.object({
                list: z.array(z.object({ sticker_id: z.number(), name: z.string(), image_url: z.string() })),
              }),
            ),
          },
        },
      },
      async (_req, reply) => {
        void reply.header('cache-control', 'public, max-age=300');
        return { status: 200 as const, data: { list: await deps.gifts.stickers() } };
      },
    );

    app.post(
      '/api/v1/gifts/send',
      {
        schema: {
          tags: ['gifts'],
          summary:
            'Send a gift in a live room (spec giftV2/sendGift). `key` makes a retry safe: the same key sends once',
          body: z.object({
            vid: z.string().regex(/^[A-Za-z0-9]{4,32}$/),
            gift_id: z.number().int().positive(),
            count: z.number().int().min(1).max(MAX_COMBO).default(1),
            key: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
          }),
          response: {
            // The coins left: what a gift spends (the wallet has both balances).
            200: okSchema(
              z.object({ tx_id: z.number(), replay: z.boolean(), balances: z.object({ coin: z.number() }) }),
            ),
            ...errors,
          },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const name = (await deps.users.name(uid)) ?? '';
        const r = await deps.gifts.send(
          { uid, name },
          { vid: req.body.vid, giftId: req.body.gift_id, count: req.body.count, key: req.body.key },
        );
        return {
          status: 200 as const,
          data: { tx_id: r.txId, replay: r.replay, balances: { coin: r.coins } },
        };
      },
    );

    app.get(
      '/api/v1/live/:vid/gifts',
      {
        schema: {
          tags: ['gifts'],
          summary:
            'The gifts the host received in this broadcast, newest first, with totals (host only). Page back with `before` (a tx_id)',
          params: z.object({ vid: z.string().regex(/^[A-Za-z0-9]{4,32}$/) }),
          querystring: z.object({
            before: z.coerce.number().int().positive().optional(),
            limit: z.coerce.number().int().min(1).max(100).default(50),
          }),
          response: {
            200: okSchema(
              z.object({
                list: z.array(
                  z.object({
                    tx_id: z.number(),
                    gift_id: z.number(),
                    count: z.number(),
                    coins: z.number(),
                    diamonds: z.number(),
                    from: z
                      .object({
                        uid: z.number(),
                        short_id: z.string(),
                        nickname: z.string(),
                        face: z.string().nullable(),
                      })
                      .nullable(),
                    at: z.string(),
                  }),
                ),
                totals: z.object({
                  gifts: z.number(),
                  coins: z.number(),
                  diamonds: z.number(),
                  senders: z.number(),
                }),
                more: z.boolean(),
                rate: z.object({ num: z.number(), den: z.number() }),
              }),
            ),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        const data = await deps.gifts.received(uid, req.params.vid, {
          before: req.query.before ?? null,
          limit: req.query.limit,
        });
        return { status: 200 as const, data };
      },
    );
  };
}
