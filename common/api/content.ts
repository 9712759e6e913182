// The staff console's content (issue 24 item 6): the gift catalogue and stickers, the sensitive-word lists
// per language, and who may broadcast from OBS (spec §7 obswhitelist).
import { z } from 'zod';
import { LOCALES } from '../locales';
import { STATIC_PAGES, type StaticPageSlug } from '../pages';
import { GIFT_NAME_MAX_CHARS } from '../room';
import { hostMarksSchema } from './explore';
import { type Answer, errorResponses } from './envelope';

export const contentErrors = errorResponses(400, 401, 403, 404, 409, 413, 415);

const locale = z.enum(LOCALES);

/** A gift's name per interface language; English is required (it is the name shown where a language has none). */
export const giftNamesSchema = z
  .partialRecord(locale, z.string().trim().min(1).max(GIFT_NAME_MAX_CHARS))
  .refine((names) => names.en !== undefined, { message: 'an English name is required' });

/** A gift as staff edit it: the wall's fields and whether it is offered. */
export const staffGiftSchema = z.object({
  gift_id: z.number(),
  name: z.string(),
  names: z.record(z.string(), z.string()),
  price: z.number(),
  format: z.enum(['video', 'lottie']),
  media_url: z.string().nullable(),
  icon_url: z.string().nullable(),
  sort: z.number(),
  active: z.boolean(),
  updated_at: z.string(),
});
export type StaffGift = Answer<typeof staffGiftSchema>;

/** GET /api/v1/staff/gifts: every gift, offered or not. */
export const staffGiftsAnswer = z.object({ list: z.array(staffGiftSchema) });

/** POST /api/v1/staff/gifts (a new gift) and PUT /api/v1/staff/gifts/:id. */
export const giftEditBody = z.object({
  names: giftNamesSchema,
  price: z.number().int().min(1).max(1_000_000),
  sort: z.number().int().min(0).max(10_000),
  active: z.boolean(),
});
export const giftParams = z.object({ id: z.coerce.number().int().positive() });

/** POST /api/v1/staff/gifts/:id/animation: an MP4 or WebM clip, the raw body (spec §4: video gifts). */
export const GIFT_ANIMATION_MAX_BYTES = 8 * 1024 * 1024;
export const GIFT_ANIMATION_TYPES = ['video/mp4', 'video/webm'] as const;
/** POST /api/v1/staff/gifts/:id/icon: a picture, the raw body; stored as a 160 px WebP. */
export const GIFT_ICON_MAX_BYTES = 2 * 1024 * 1024;
export const GIFT_ICON_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

/** A sticker of the chat's set as staff edit it (spec giftV2H5/giftStickers); no picture yet: not offered. */
export const staffStickerSchema = z.object({
  sticker_id: z.number(),
  name: z.string(),
  names: z.record(z.string(), z.string()),
  image_url: z.string().nullable(),
  sort: z.number(),
  active: z.boolean(),
  updated_at: z.string(),
});
export type StaffSticker = Answer<typeof staffStickerSchema>;
/** GET /api/v1/staff/stickers: every sticker, offered or not. */
export const staffStickersAnswer = z.object({ list: z.array(staffStickerSchema) });
/** POST /api/v1/staff/stickers (a new one) and PUT /api/v1/staff/stickers/:id. */
export const stickerEditBody = z.object({
  names: giftNamesSchema,
  sort: z.number().int().min(0).max(10_000),
  active: z.boolean(),
});
export const stickerParams = giftParams;
/** POST /api/v1/staff/stickers/:id/image: a PNG, JPEG or WebP picture, the raw body; stored as a 160 px WebP. */
export const STICKER_IMAGE_MAX_BYTES = GIFT_ICON_MAX_BYTES;

/** A language's sensitive words and whether staff edited them (else the shipped list). */
export const wordListSchema = z.object({
  locale,
  words: z.array(z.string()),
  edited: z.object({ by: z.string().nullable(), at: z.string() }).nullable(),
});
export type WordList = Answer<typeof wordListSchema>;
/** GET /api/v1/staff/words. */
export const wordListsAnswer = z.object({ list: z.array(wordListSchema) });
/** PUT /api/v1/staff/words/:locale: the whole list (applied on every node at once). */
export const wordListParams = z.object({ locale });
export const wordListBody = z.object({
  words: z.array(z.string().trim().min(1).max(100)).max(5000),
});

/** Who may broadcast from OBS: everyone, or the people listed; `source` says whether staff set it. */
export const obsPolicyAnswer = z.object({
  mode: z.enum(['all', 'list']),
  source: z.enum(['config', 'staff']),
  list: z.array(z.object({ uid: z.number(), short_id: z.string(), nickname: z.string() })),
});
export type ObsPolicy = Answer<typeof obsPolicyAnswer>;
/** PUT /api/v1/staff/obs. */
export const obsModeBody = z.object({ mode: z.enum(['all', 'list']) });
/** POST /api/v1/staff/obs/people: by short id. */
export const obsAddBody = z.object({ short_id: z.string().trim().min(1).max(32) });
export const obsPersonParams = z.object({ uid: z.coerce.number().int().positive() });

/** GET /api/v1/staff/hosts?q=: people by short id or nickname with their discovery marks. */
export const hostLookupQuery = z.object({ q: z.string().trim().min(1).max(64) });
export const hostLookupAnswer = z.object({
  list: z.array(
    z.object({
      uid: z.number(),
      short_id: z.string(),
      nickname: z.string(),
      face: z.string().nullable(),
      marks: hostMarksSchema,
    }),
  ),
});
export type HostLookup = Answer<typeof hostLookupAnswer>;

const pageSlug = z.enum(STATIC_PAGES.map((p) => p.slug) as [StaticPageSlug, ...StaticPageSlug[]]);

/** GET /api/v1/staff/pages?locale=: every static page, titled in the reader's language (else English). */
export const staffPagesQuery = z.object({ locale: locale.default('en') });
/** GET /api/v1/staff/pages: every static page, with the languages staff edited. */
export const staffPagesAnswer = z.object({
  list: z.array(z.object({ slug: pageSlug, title: z.string(), edited: z.array(locale) })),
});
export type StaffPages = Answer<typeof staffPagesAnswer>;

/** A language's text of a static page: staff's (`edit`) or the repository's (`file`). */
export const pageTextSchema = z.object({
  locale,
  title: z.string(),
  description: z.string(),
  body_md: z.string(),
  source: z.enum(['file', 'edit']),
  /** When staff saved it (who: the audit log). */
  edited_at: z.string().nullable(),
});
export type PageText = Answer<typeof pageTextSchema>;
/** GET /api/v1/staff/pages/:slug: the page in every language it is written in. */
export const staffPageAnswer = z.object({ slug: pageSlug, texts: z.array(pageTextSchema) });
export type StaffPage = Answer<typeof staffPageAnswer>;
export const staffPageParams = z.object({ slug: pageSlug });
export const staffPageTextParams = z.object({ slug: pageSlug, locale });
/** PUT /api/v1/staff/pages/:slug/:locale: a language's text (Markdown; raw HTML shows as text). */
export const pageEditBody = z.object({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().max(300),
  body_md: z.string().max(100_000),
});
export type PageEditBody = z.infer<typeof pageEditBody>;
