// Broadcasts: start, end, cover, OBS, who is live (server/modules/live/routes.ts).
import { z } from 'zod';
import { LIVE_CATEGORIES } from '../discovery';
import { type Answer, errorResponses } from './envelope';

export const liveErrors = errorResponses(400, 502, 401, 403, 404, 409, 410, 429);

/** Paths of one broadcast (a vid is 12 letters and digits). */
export const vidParam = z.object({ vid: z.string().regex(/^[A-Za-z0-9]{12}$/) });

export const ORIENTATIONS = ['portrait', 'landscape'] as const;
export { LIVE_CATEGORIES, type LiveCategory } from '../discovery';
export const LIVE_STATUSES = ['created', 'live', 'ended', 'deleted', 'expired'] as const;
/**
 * Why a broadcast ended: its broadcaster ended it, another tab (or OBS) took over, its publisher
 * was gone past the reconnect grace, or its lease lapsed (the node with its media died or froze).
 */
export const END_REASONS = ['host', 'taken_over', 'lost', 'lapsed', 'staff'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** A broadcast as the API answers it (GET /api/v1/live, /api/v1/live/{vid}). */
export const liveSchema = z.object({
  vid: z.string(),
  title: z.string(),
  cover: z.string().nullable(),
  orientation: z.enum(ORIENTATIONS),
  category: z.enum(LIVE_CATEGORIES),
  status: z.enum(LIVE_STATUSES),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  /** Why it ended; null while it is on. */
  ended_reason: z.enum(END_REASONS).nullable(),
  viewers: z.number(),
  host: z.object({
    uid: z.number(),
    short_id: z.string(),
    nickname: z.string(),
    face: z.string().nullable(),
  }),
  /** The replay's parts once the broadcast has ended (empty while it is being generated). */
  replay: z.array(z.object({ url: z.string(), seconds: z.number() })),
  /** A broadcast with a picture, or an audio room (its page is /audio/{vid}). */
  kind: z.enum(['video', 'audio']),
});
export type LiveInfo = Answer<typeof liveSchema>;

/** POST /api/v1/live. */
export const startLiveBody = z.object({
  title: z.string().max(60),
  orientation: z.enum(ORIENTATIONS).default('portrait'),
  category: z.enum(LIVE_CATEGORIES).default('chat'),
  take_over: z.boolean().default(false),
});
export const startLiveAnswer = z.object({
  vid: z.string(),
  whip_url: z.string(),
  publish_token: z.string(),
  /** Whether the media engine switches viewers between simulcast layers (the studio then sends three). */
  simulcast: z.boolean(),
});
export type StartedLive = Answer<typeof startLiveAnswer>;

/** GET /api/v1/live/obs. */
export const obsAnswer = z.object({
  allowed: z.boolean(),
  has_key: z.boolean(),
  /** What broadcasts from OBS are about (the page sets it; OBS cannot ask). */
  category: z.enum(LIVE_CATEGORIES),
  whip_url: z.string(),
  active: z.object({ vid: z.string(), status: z.string() }).nullable(),
});
export type ObsStatus = Answer<typeof obsAnswer>;

/** POST /api/v1/live/obs/category. */
export const obsCategoryBody = z.object({ category: z.enum(LIVE_CATEGORIES) });

/** POST /api/v1/live/obs/key. */
export const streamKeyAnswer = z.object({ stream_key: z.string() });

/** POST /api/v1/live/:vid/cover: the 3:4 box to keep of the uploaded image. */
export const coverQuery = z.object({
  x: z.coerce.number().min(0),
  y: z.coerce.number().min(0),
  w: z.coerce.number().min(1),
  h: z.coerce.number().min(1),
});
export const coverAnswer = z.object({ cover: z.string() });

/** POST /api/v1/live/:vid/end. */
export const endLiveAnswer = z.object({
  vid: z.string(),
  duration_seconds: z.number(),
  peak_viewers: z.number(),
});

/** GET /api/v1/live. */
/** ICE servers for a page's peer connections (TURN with credentials that expire at `expires`). */
export const iceAnswer = z.object({
  ice_servers: z.array(
    z.object({
      urls: z.array(z.string()),
      username: z.string().optional(),
      credential: z.string().optional(),
    }),
  ),
  /** When the credentials stop working (ISO time); a page asks again before. */
  expires: z.string(),
});
export type IceAnswer = Answer<typeof iceAnswer>;

export const liveNowAnswer = z.object({ list: z.array(liveSchema) });

/**
 * POST /api/v1/whep/{vid}/{session}/layer, WHEP's layer extension (draft-ietf-wish-whep §4.6.2):
 * the player's size in device pixels, or a layer by its RID. Either caps the layers the viewer
 * may get; its network decides within that.
 */
export const layerWish = z
  .object({
    encodingId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,16}$/)
      .optional(),
    maxWidth: z.number().int().min(1).max(16384).optional(),
    maxHeight: z.number().int().min(1).max(16384).optional(),
  })
  .strict();
export type LayerWishBody = z.infer<typeof layerWish>;

/** A viewer's layers and the one it gets (GET or POST on the layer URL); null: none to choose from. */
export const layerState = z
  .object({
    layers: z.array(z.object({ encodingId: z.string(), width: z.number(), height: z.number() })),
    current: z.number(),
    target: z.number(),
    max: z.number(),
  })
  .nullable();
export type LayerStateAnswer = Answer<typeof layerState>;
