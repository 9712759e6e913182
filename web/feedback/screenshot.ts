import { FEEDBACK_SCREENSHOT_MAX_BYTES } from '../../common/feedback';

/** The image types the server reads (it re-encodes them as WebP). */
const TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

export type ScreenshotProblem = 'type' | 'size';

/** Why a chosen file cannot be sent, before any upload; null when it can. */
export function screenshotProblem(file: { type: string; size: number }): ScreenshotProblem | null {
  if (!TYPES.has(file.type)) return 'type';
  if (file.size > FEEDBACK_SCREENSHOT_MAX_BYTES) return 'size';
  return null;
}

/** The file's bytes as base64 (what the API takes in JSON). */
export function readBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}
