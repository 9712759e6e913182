import sharp from 'sharp';
import { AppError } from '../../../common/errors';
import {
  FEEDBACK_CONTACT_MAX_CHARS,
  FEEDBACK_MAX_CHARS,
  FEEDBACK_SCREENSHOT_MAX_BYTES,
  type FeedbackCategory,
} from '../../../common/feedback';
import type { Locale } from '../../../common/locales';
import { cleanText } from '../../../common/text';
import { countGraphemes } from '../../../common/validation';
import type { Db } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import { feedbackRepo, type FeedbackRow } from './repo';

/**
 * A person sends a few messages; more than this is a script or a flood. Counted per account,
 * per browser and per address (an office or a phone network shares one, so it is the loosest).
 */
export const FEEDBACK_LIMITS = {
  account: { name: 'feedback:account', max: 5, windowSeconds: 3600 },
  device: { name: 'feedback:device', max: 5, windowSeconds: 3600 },
  ip: { name: 'feedback:ip', max: 20, windowSeconds: 3600 },
} satisfies Record<string, Limit>;

/** The kept screenshot: enough to read a page's text, small enough to keep in the database. */
const SCREENSHOT_SIDE = 1600;
const SCREENSHOT_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif']);
const MAX_INPUT_SIDE = 10_000;
const BROWSER_MAX = 300;
const PAGE_SIZE = 50;

export interface FeedbackInput {
  category: FeedbackCategory;
  text: string;
  contact: string;
  page: string;
  locale: Locale;
  appVersion: string;
  /** Base64 of the image as chosen. */
  screenshot?: string | undefined;
}

/** Who sent it, for the limits and the staff (the browser from the User-Agent header). */
export interface FeedbackSender {
  uid: number | null;
  ip: string;
  deviceId: string | null;
  userAgent: string;
}

/** Feedback and suggestions (issue 23 item 4): taken from the form, read by staff. */
export class FeedbackService {
  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly limitScale = 1,
  ) {}

  async send(from: FeedbackSender, input: FeedbackInput): Promise<number> {
    const text = cleanText(input.text).trim();
    const length = countGraphemes(text);
    if (length === 0 || length > FEEDBACK_MAX_CHARS)
      throw new AppError('validation_failed', { field: 'text' });
    const contact = cleanText(input.contact).trim();
    if (countGraphemes(contact) > FEEDBACK_CONTACT_MAX_CHARS)
      throw new AppError('validation_failed', { field: 'contact' });
    // Limits before the image work: a flood must not cost a decode per request.
    await enforceLimits(
      this.kv,
      [
        { limit: FEEDBACK_LIMITS.account, key: from.uid === null ? null : String(from.uid) },
        { limit: FEEDBACK_LIMITS.device, key: from.deviceId },
        { limit: FEEDBACK_LIMITS.ip, key: from.ip },
      ],
      this.limitScale,
    );
    const screenshot = input.screenshot ? await shrinkScreenshot(input.screenshot) : null;
    return feedbackRepo.add(this.db, {
      uid: from.uid,
      category: input.category,
      text,
      contact,
      page: input.page,
      locale: input.locale,
      appVersion: input.appVersion,
      browser: from.userAgent.slice(0, BROWSER_MAX),
      screenshot,
    });
  }

  /** The staff inbox: newest first, a page at a time. */
  async list(q: {
    before?: number | undefined;
    category?: FeedbackCategory | undefined;
  }): Promise<{ list: FeedbackRow[]; next: number | null }> {
    const list = await feedbackRepo.list(this.db, {
      before: q.before ?? null,
      category: q.category ?? null,
      limit: PAGE_SIZE,
    });
    return { list, next: list.length === PAGE_SIZE ? (list.at(-1)?.id ?? null) : null };
  }

  /** A message's screenshot (WebP), for staff. */
  async screenshot(id: number): Promise<Buffer> {
    const bytes = await feedbackRepo.screenshot(this.db, id);
    if (!bytes) throw new AppError('not_found');
    return Buffer.from(bytes);
  }
}

/**
 * The screenshot as kept: decoded and encoded again (nothing of the file as sent survives, EXIF
 * and location included), turned upright, at most 1600 px a side, WebP. Anything that is not a
 * reasonably sized JPEG, PNG, WebP or GIF is refused.
 */
export async function shrinkScreenshot(base64: string): Promise<Buffer> {
  const input = Buffer.from(base64, 'base64');
  if (input.length > FEEDBACK_SCREENSHOT_MAX_BYTES) throw new AppError('payload_too_large');
  const options = { limitInputPixels: MAX_INPUT_SIDE * MAX_INPUT_SIDE };
  try {
    const meta = await sharp(input, options).metadata();
    if (!meta.format || !SCREENSHOT_FORMATS.has(meta.format)) throw new Error(`format ${meta.format}`);
    return await sharp(input, options)
      .rotate()
      .resize(SCREENSHOT_SIDE, SCREENSHOT_SIDE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer();
  } catch {
    throw new AppError('validation_failed', { field: 'screenshot' });
  }
}
