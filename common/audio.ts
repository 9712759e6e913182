// Audio rooms' vocabulary (issue 23 item 3): plain values, so the browser imports them without zod.

/** Seats of an audio room: the host's (0) and up to seven co-hosts'. */
export const AUDIO_SEATS = 8;
/**
 * How often the join page asks for the seats besides their pushes over /ws: only in case a push
 * was lost (a node restarting), so not often.
 */
export const AUDIO_POLL_MS = 15_000;
/** The engine room a co-host speaks into: the broadcast's vid, '~', their uid (the host's is the vid). */
export function speakerRoom(vid: string, uid: number, host: number): string {
  return uid === host ? vid : `${vid}~${uid}`;
}
