// Keeping the site safe (issue 24 item 2, server/modules/safety): the staff's queue of reports,
// their actions on an account, and the warning its person is shown.
import { z } from 'zod';
import { REPORT_CATEGORIES } from '../room';
import { type Answer, errorResponses } from './envelope';
import { personSchema } from './explore';
import { staffNote } from './staff';

export const safetyErrors = errorResponses(400, 401, 403, 404, 409);

/** A chat message as staff read it: who, what, when (ms). */
export const chatLineSchema = z.object({
  id: z.string(),
  from: z.object({ uid: z.number(), name: z.string() }),
  text: z.string(),
  at: z.number(),
});
export type ChatLineView = Answer<typeof chatLineSchema>;

/** Reports about one person in one broadcast (or outside any), open ones only. */
export const reportGroupSchema = z.object({
  target: personSchema,
  /** The broadcast reported, with where the reported moment is in its replay (seconds in). */
  live: z
    .object({
      vid: z.string(),
      title: z.string(),
      status: z.string(),
      at_seconds: z.number().nullable(),
    })
    .nullable(),
  count: z.number(),
  newest: z.string(),
  categories: z.array(z.enum(REPORT_CATEGORIES)),
  /** The newest few: who reported, why, when. */
  reports: z.array(
    z.object({
      id: z.number(),
      reporter: z.object({ uid: z.number(), nickname: z.string() }),
      category: z.enum(REPORT_CATEGORIES),
      reason: z.string(),
      at: z.string(),
      /** The room's latest messages when the report was made (none outside a broadcast). */
      chat: z.array(chatLineSchema).nullable(),
    }),
  ),
  /** What staff did to this account before: warnings, suspensions, a ban. */
  sanctions: z.array(z.object({ kind: z.enum(['warn', 'suspend', 'ban']), at: z.string() })),
});
export type ReportGroup = Answer<typeof reportGroupSchema>;
/** GET /api/v1/staff/reports: newest and most reported first. */
export const reportQueueAnswer = z.object({ list: z.array(reportGroupSchema) });

export const SAFETY_ACTIONS = ['dismiss', 'warn', 'end', 'suspend', 'ban'] as const;
export type SafetyAction = (typeof SAFETY_ACTIONS)[number];

/** POST /api/v1/staff/reports/act: one action on a group (its person and broadcast), with a note. */
export const safetyActBody = z
  .object({
    target: z.number().int().positive(),
    vid: z.string().max(32).nullable(),
    action: z.enum(SAFETY_ACTIONS),
    note: staffNote,
    /** A suspension's length. */
    days: z.number().int().min(1).max(365).optional(),
  })
  .refine((b) => b.action !== 'suspend' || b.days !== undefined, {
    message: 'days: a suspension is for some days',
  });

/** GET /api/v1/me/warning: a warning from the team its person has not read yet. */
export const warningAnswer = z.object({
  warning: z
    .object({ id: z.number(), category: z.enum(REPORT_CATEGORIES).nullable(), at: z.string() })
    .nullable(),
});
export const warningParams = z.object({ id: z.coerce.number().int().positive() });

/** GET /api/v1/staff/lives: the live monitor's broadcasts, by viewers or open reports; `q` finds a host. */
export const monitorQuery = z.object({
  sort: z.enum(['viewers', 'reports']).default('viewers'),
  q: z.string().trim().max(64).optional(),
});
export const monitorLiveSchema = z.object({
  vid: z.string(),
  title: z.string(),
  kind: z.enum(['video', 'audio']),
  started_at: z.string().nullable(),
  viewers: z.number(),
  /** Open reports about the host (of this broadcast or not). */
  reports: z.number(),
  /** Of those, the ones made about this broadcast. */
  live_reports: z.number(),
  host: z.object({
    uid: z.number(),
    short_id: z.string(),
    nickname: z.string(),
    face: z.string().nullable(),
  }),
});
export type MonitorLive = Answer<typeof monitorLiveSchema>;
export const monitorAnswer = z.object({ list: z.array(monitorLiveSchema) });
/** GET /api/v1/staff/lives/:vid/frame (a JPEG) and …/chat. */
export const monitorParams = z.object({ vid: z.string().regex(/^[A-Za-z0-9]{4,32}$/) });
/** GET /api/v1/staff/lives/:vid/chat: the room's latest messages, oldest first. */
export const monitorChatAnswer = z.object({ list: z.array(chatLineSchema) });
export type MonitorChat = Answer<typeof monitorChatAnswer>;

/** Someone as the console's people lookup lists them (staff see the contact details). */
export const staffPersonSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  country: z.string(),
  created_at: z.string(),
});
export type StaffPerson = Answer<typeof staffPersonSchema>;
/** GET /api/v1/staff/people?q=: by short id, e-mail, phone (+…) or the start of a nickname. */
export const peopleQuery = z.object({ q: z.string().trim().min(1).max(254) });
export const peopleAnswer = z.object({ list: z.array(staffPersonSchema) });
export const personParams = z.object({ uid: z.coerce.number().int().positive() });

/** GET /api/v1/staff/people/:uid: what staff look at before acting on someone. */
export const personDetailAnswer = z.object({
  person: staffPersonSchema,
  /** Signed-in sessions now: the device each is on, when it began and ends. */
  sessions: z.array(
    z.object({
      id: z.number(),
      device_id: z.string(),
      /** The address it was signed in from, and its browser and system (from the User-Agent). */
      ip: z.string().nullable(),
      browser: z.string().nullable(),
      os: z.string().nullable(),
      created_at: z.string(),
      expires_at: z.string(),
    }),
  ),
  lives: z.array(
    z.object({
      vid: z.string(),
      title: z.string(),
      status: z.string(),
      started_at: z.string().nullable(),
      ended_at: z.string().nullable(),
      peak_viewers: z.number(),
    }),
  ),
  reports: z.object({
    /** Reports they made, in all. */
    made: z.number(),
    /** Reports about them: open now, in all, and the latest few. */
    open: z.number(),
    received: z.number(),
    latest: z.array(
      z.object({
        category: z.enum(REPORT_CATEGORIES),
        reason: z.string(),
        status: z.string(),
        at: z.string(),
      }),
    ),
  }),
  sanctions: z.array(
    z.object({
      id: z.number(),
      kind: z.enum(['warn', 'suspend', 'ban']),
      note: z.string(),
      at: z.string(),
      until: z.string().nullable(),
      /** A suspension still running or a ban, not lifted: staff may lift it. */
      in_force: z.boolean(),
      /** When and why staff lifted it (a suspension or ban). */
      lifted_at: z.string().nullable(),
      lift_note: z.string().nullable(),
    }),
  ),
  wallet: z.object({ coin: z.number(), diamond: z.number() }),
  payee: z.object({ method: z.string(), account: z.string(), status: z.string() }).nullable(),
});
export type PersonDetail = Answer<typeof personDetailAnswer>;

/** POST /api/v1/staff/people/:uid/reset: an inappropriate avatar or nickname replaced, with a note. */
export const personResetBody = z.object({ what: z.enum(['avatar', 'nickname']), note: staffNote });
/** POST /api/v1/staff/people/:uid/sanctions/:id/lift: a suspension or ban lifted, with a note. */
export const sanctionParams = z.object({
  uid: z.coerce.number().int().positive(),
  id: z.coerce.number().int().positive(),
});
/** POST /api/v1/staff/people/:uid/sessions/revoke: every session ended, with a note. */
export const personNoteBody = z.object({ note: staffNote });
