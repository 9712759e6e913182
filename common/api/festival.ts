// The festival programme (issue 23 item 2; spec §7 programme/getByID: id, tz; programme info: id,
// name, follow, list; item: programme_id, etime): lists for banners, a programme's page, following
// it, and the staff's schedule (server/modules/festival/routes.ts).
import { z } from 'zod';
import {
  PROGRAMME_MAX_SLOTS,
  PROGRAMME_NAME_MAX_CHARS,
  SLOT_STATES,
  SLOT_TITLE_MAX_CHARS,
} from '../festival';
import { LOCALES } from '../locales';
import { type Answer, errorResponses } from './envelope';
import { personSchema } from './explore';

export const festivalErrors = errorResponses(400, 401, 403, 404, 429);

export const programmeParams = z.object({ id: z.coerce.number().int().positive() });

/** A programme as lists and home's banners show it, in the reader's language. */
export const programmeCard = z.object({
  id: z.number(),
  name: z.string(),
  /** The first slot's start and the last one's end (etime): lists drop it after, every 60 s. */
  starts_at: z.string(),
  ends_at: z.string(),
  /** A slot is on now. */
  on_now: z.boolean(),
  /** The next slot's start, if one is still to come. */
  next_at: z.string().nullable(),
});
export type ProgrammeCard = Answer<typeof programmeCard>;

/** GET /api/v1/programmes?locale=: the programmes not over yet, for banners. */
export const programmesQuery = z.object({ locale: z.enum(LOCALES).default('en') });
export const programmesAnswer = z.object({ list: z.array(programmeCard) });

/** GET /api/v1/programmes/{id}?tz=&locale=: days are the viewer's (an IANA zone; UTC when unknown). */
export const programmeQuery = programmesQuery.extend({ tz: z.string().max(64).optional() });

export const slotSchema = z.object({
  id: z.number(),
  title: z.string(),
  host: personSchema,
  starts_at: z.string(),
  ends_at: z.string(),
  /** The day it starts on in the asked time zone (YYYY-MM-DD). */
  day: z.string(),
  state: z.enum(SLOT_STATES),
  /** On: the host's broadcast on air now (null while they are not live yet). */
  live: z.string().nullable(),
  /** Ended: the host's broadcast in the slot that has a replay (null when none). */
  replay: z.string().nullable(),
});
export type ProgrammeSlot = Answer<typeof slotSchema>;

export const programmeInfo = programmeCard.extend({
  /** Every language's name (staff edit them; the page shows `name`). */
  names: z.record(z.string(), z.string()),
  /** The reader follows it (false for visitors). */
  follow: z.boolean(),
  followers: z.number(),
  /** The zone the days are in. */
  tz: z.string(),
  list: z.array(slotSchema),
});
export type ProgrammeInfo = Answer<typeof programmeInfo>;

/** PUT / DELETE /api/v1/programmes/{id}/follow. */
export const programmeFollowAnswer = z.object({ follow: z.boolean(), followers: z.number() });
export type ProgrammeFollowAnswer = Answer<typeof programmeFollowAnswer>;

/** POST /api/v1/staff/programmes, PUT /api/v1/staff/programmes/{id} (the whole schedule). */
export const programmeBody = z.object({
  names: z
    .partialRecord(
      z.enum(LOCALES),
      z
        .string()
        .trim()
        .min(1)
        .max(PROGRAMME_NAME_MAX_CHARS * 4),
    )
    .refine((n) => n.en !== undefined, { message: 'an English name is required' }),
  slots: z
    .array(
      z.object({
        /** The host's short id (as on their personal page). */
        host: z.string().regex(/^[0-9]{4,20}$/),
        title: z
          .string()
          .max(SLOT_TITLE_MAX_CHARS * 4)
          .default(''),
        starts_at: z.iso.datetime({ offset: true }),
        ends_at: z.iso.datetime({ offset: true }),
      }),
    )
    .min(1)
    .max(PROGRAMME_MAX_SLOTS),
});
export type ProgrammeBody = z.input<typeof programmeBody>;
