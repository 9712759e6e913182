import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  giftErrors as errors,
  giftWallAnswer,
  receivedGiftsAnswer,
  receivedGiftsParams,
  receivedGiftsQuery,
  sendGiftAnswer,
  sendGiftBody,
  stickersAnswer,
} from '../../../common/api/gifts';
import { requireAuth } from '../auth';
import type { UsersService } from '../users';
import type { GiftService } from './service';

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
          response: { 200: okSchema(giftWallAnswer) },
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
          response: { 200: okSchema(stickersAnswer) },
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
          body: sendGiftBody,
          // The coins left: what a gift spends (the wallet has both balances).
          response: { 200: okSchema(sendGiftAnswer), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const { to } = req.body;
        const [name, toName] = await Promise.all([
          deps.users.name(uid),
          to === undefined ? null : deps.users.name(to),
        ]);
        const r = await deps.gifts.send(
          { uid, name: name ?? '' },
          {
            vid: req.body.vid,
            giftId: req.body.gift_id,
            count: req.body.count,
            key: req.body.key,
            ...(to === undefined ? {} : { to: { uid: to, name: toName ?? '' } }),
          },
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
          params: receivedGiftsParams,
          querystring: receivedGiftsQuery,
          response: { 200: okSchema(receivedGiftsAnswer), ...errors },
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
