// Short videos' vocabulary (issue 23 item 1), shared by the API contract (common/api/videos.ts),
// the server and the page: plain values, so the browser bundle imports them without zod.

/** An upload may last this long (spec: short videos are ≤ 60 s); a clip too. */
export const SHORT_MAX_SECONDS = 60;
/** A clip is at least this long. */
export const SHORT_MIN_SECONDS = 1;
/** An upload's largest size. */
export const SHORT_MAX_BYTES = 100 * 1024 * 1024;
/** The feed's page (spec §9: page size 20). */
export const SHORTS_PAGE = 20;
/** A comment's longest text, as a chat message's (the chat's rules apply). */
export const SHORT_COMMENT_MAX_CHARS = 200;
/** A title's longest text. */
export const SHORT_TITLE_MAX_CHARS = 80;

/**
 * The feed's lists: hot ranks every ready video by its score (likes, comments and views,
 * weighed against age: docs/decisions.md); wonderful lists the ones staff marked, newest mark
 * first; new is newest first.
 */
export const SHORT_TABS = ['hot', 'wonderful', 'new'] as const;
export type ShortTab = (typeof SHORT_TABS)[number];

/** Where a video is: being transcoded or cut, ready to play, or refused after upload. */
export const SHORT_STATUSES = ['processing', 'ready', 'failed'] as const;
export type ShortStatus = (typeof SHORT_STATUSES)[number];

/** Where a video came from: an upload, or a clip of the host's own replay. */
export const SHORT_SOURCES = ['upload', 'clip'] as const;
export type ShortSource = (typeof SHORT_SOURCES)[number];

/** A short video's id: 12 letters and digits (as a broadcast's). */
export const SHORT_ID = /^[A-Za-z0-9]{12}$/;
