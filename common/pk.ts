// PK battles' fixed rules, shared by the server, the API contract and the pages (no zod here:
// the pages import it).

/** Spec §4 rounds: a 3 s countdown, the round (1–10 min, 5 by default), the dare (60 s). */
export const PK_AWAIT_SECONDS = 3;
export const PK_ROUND_MINUTES = { min: 1, max: 10, default: 5 } as const;
export const PK_PUNISH_SECONDS = 60;
/** An invitation is answered within this, or it lapses. */
export const PK_INVITE_SECONDS = 10;
export const PK_DARE_MAX = 80;
/** A result stays on the rooms' screens (and on a page opened meanwhile) this long. */
export const PK_RESULT_MS = 15_000;
/** A host waits this long in the random match queue for an opponent. */
export const PK_QUEUE_SECONDS = 30;
