import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  contentErrors as errors,
  GIFT_ANIMATION_MAX_BYTES,
  GIFT_ANIMATION_TYPES,
  GIFT_ICON_MAX_BYTES,
  GIFT_ICON_TYPES,
  giftEditBody,
  giftParams,
  staffGiftSchema,
  staffGiftsAnswer,
  staffStickerSchema,
  staffStickersAnswer,
  STICKER_IMAGE_MAX_BYTES,
  stickerEditBody,
  stickerParams,
} from '../../../common/api/content';
import { AppError } from '../../../common/errors';
import type { StaffGuard } from '../staff';
import type { GiftCatalogue } from './catalogue';

/** The gift catalogue and the chat's stickers in the staff console (content editors). */
export function staffGiftRoutes(deps: {
  catalogue: GiftCatalogue;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { catalogue, staff } = deps;
  const oneGift = { 200: okSchema(staffGiftSchema), ...errors };
  const oneSticker = { 200: okSchema(staffStickerSchema), ...errors };
  return async (app) => {
    // Clips and pictures arrive as the raw request body with their type (this plugin's only).
    app.addContentTypeParser(
      [...GIFT_ANIMATION_TYPES, ...GIFT_ICON_TYPES],
      { parseAs: 'buffer', bodyLimit: GIFT_ANIMATION_MAX_BYTES },
      (_req, body, done) => {
        done(null, body);
      },
    );
    const bytes = (body: unknown, limit: number): Buffer => {
      if (!Buffer.isBuffer(body)) throw new AppError('validation_failed', { field: 'file' });
      if (body.length > limit) throw new AppError('payload_too_large');
      return body;
    };

    app.get(
      '/api/v1/staff/gifts',
      {
        schema: {
          tags: ['staff'],
          summary: 'Every gift of the catalogue, offered or not (content editors)',
          response: { 200: okSchema(staffGiftsAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'content.edit');
        return { status: 200 as const, data: { list: await catalogue.list() } };
      },
    );

    app.post(
      '/api/v1/staff/gifts',
      {
        schema: {
          tags: ['staff'],
          summary: 'A new gift (on the wall once it has an animation and is offered)',
          body: giftEditBody,
          response: oneGift,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await catalogue.create(actor, req.body) };
      },
    );

    app.put(
      '/api/v1/staff/gifts/:id',
      {
        schema: {
          tags: ['staff'],
          summary: "A gift's names per language, price, place on the wall and whether it is offered",
          params: giftParams,
          body: giftEditBody,
          response: oneGift,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await catalogue.update(actor, req.params.id, req.body) };
      },
    );

    app.post(
      '/api/v1/staff/gifts/:id/animation',
      {
        bodyLimit: GIFT_ANIMATION_MAX_BYTES,
        schema: {
          tags: ['staff'],
          summary: "A gift's animation: an MP4 or WebM clip under 8 MB as the raw body",
          params: giftParams,
          response: oneGift,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        const clip = bytes(req.body, GIFT_ANIMATION_MAX_BYTES);
        return { status: 200 as const, data: await catalogue.setAnimation(actor, req.params.id, clip) };
      },
    );

    app.post(
      '/api/v1/staff/gifts/:id/icon',
      {
        bodyLimit: GIFT_ANIMATION_MAX_BYTES,
        schema: {
          tags: ['staff'],
          summary: "A gift's icon: a PNG, JPEG or WebP picture under 2 MB as the raw body",
          params: giftParams,
          response: oneGift,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        const picture = bytes(req.body, GIFT_ICON_MAX_BYTES);
        return { status: 200 as const, data: await catalogue.setIcon(actor, req.params.id, picture) };
      },
    );

    app.get(
      '/api/v1/staff/stickers',
      {
        schema: {
          tags: ['staff'],
          summary: "Every sticker of the chat's set, offered or not (content editors)",
          response: { 200: okSchema(staffStickersAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'content.edit');
        return { status: 200 as const, data: { list: await catalogue.listStickers() } };
      },
    );

    app.post(
      '/api/v1/staff/stickers',
      {
        schema: {
          tags: ['staff'],
          summary: 'A new sticker (offered once it has a picture)',
          body: stickerEditBody,
          response: oneSticker,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await catalogue.createSticker(actor, req.body) };
      },
    );

    app.put(
      '/api/v1/staff/stickers/:id',
      {
        schema: {
          tags: ['staff'],
          summary: "A sticker's names per language, place in the set and whether it is offered",
          params: stickerParams,
          body: stickerEditBody,
          response: oneSticker,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await catalogue.updateSticker(actor, req.params.id, req.body) };
      },
    );

    app.post(
      '/api/v1/staff/stickers/:id/image',
      {
        bodyLimit: GIFT_ANIMATION_MAX_BYTES,
        schema: {
          tags: ['staff'],
          summary: "A sticker's picture: a PNG, JPEG or WebP under 2 MB as the raw body",
          params: stickerParams,
          response: oneSticker,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        const picture = bytes(req.body, STICKER_IMAGE_MAX_BYTES);
        return { status: 200 as const, data: await catalogue.setStickerImage(actor, req.params.id, picture) };
      },
    );
  };
}
