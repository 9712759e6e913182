import { z } from 'zod';

/** Client → server messages of /ws, validated; the shared types are in common/realtime.ts. */
export * from '../../common/realtime';

const room = z.string().regex(/^[A-Za-z0-9]{4,32}$/);
const eventId = z.string().regex(/^\d{1,16}-\d{1,10}$/);

export const clientMessage = z.discriminatedUnion('t', [
  z.object({ t: z.literal('join'), room, since: eventId.optional() }),
  z.object({ t: z.literal('leave'), room }),
  z.object({
    t: z.literal('chat'),
    room,
    text: z.string().min(1).max(1000),
    ref: z.string().max(40).optional(),
  }),
  z.object({ t: z.literal('delete'), room, mid: z.string().max(40), ref: z.string().max(40).optional() }),
  z.object({ t: z.literal('ping') }),
]);

export type ClientMessage = z.infer<typeof clientMessage>;
