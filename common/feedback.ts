// Feedback and suggestions (spec §2 screens: feedback or suggestion form; issue 23 item 4):
// the rules the form and the server share.

/** What the message is about; the staff inbox groups by it. */
export const FEEDBACK_CATEGORIES = ['bug', 'idea', 'live', 'payment', 'account', 'other'] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

/** The text, in characters as people count them (graphemes). */
export const FEEDBACK_MAX_CHARS = 1000;
/** An e-mail address or phone number to answer on (optional). */
export const FEEDBACK_CONTACT_MAX_CHARS = 100;
/** The screenshot as chosen (JPEG, PNG, WebP or GIF); the server keeps a smaller WebP of it. */
export const FEEDBACK_SCREENSHOT_MAX_BYTES = 5 * 1024 * 1024;
