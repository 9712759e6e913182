import { FEEDBACK_CATEGORIES, type FeedbackCategory } from '../../common/feedback';
import { safeRedirect } from '../../common/validation';

/**
 * The feedback form's path (without language) for someone on `from` (the URL they are on, path
 * and query), optionally about `category`: the form sends `from` with the message so the staff
 * can look at the page.
 */
export function feedbackPath(from: string, category?: FeedbackCategory): string {
  const q = new URLSearchParams({ from });
  if (category) q.set('category', category);
  return `/feedback?${q.toString()}`;
}

/** What the form's own URL asks: the page to send with the message, and a category to preselect. */
export function feedbackQuery(url: string): { from: string; category: FeedbackCategory | null } {
  const q = new URLSearchParams(url.split('?')[1] ?? '');
  const from = safeRedirect(q.get('from'))?.slice(0, 512) ?? '/';
  const asked = q.get('category');
  const category = FEEDBACK_CATEGORIES.find((c) => c === asked) ?? null;
  return { from, category };
}
