import sharp, { type Metadata } from 'sharp';
import { AppError } from '../../../common/errors';

export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;
export const AVATAR_SIZE = 256;
const FORMATS = new Set(['jpeg', 'png', 'webp', 'gif']);
const MAX_SIDE = 8000;

export interface Crop {
  x: number;
  y: number;
  size: number;
}

/**
 * Turns an uploaded photo into the avatar: rotated by its EXIF orientation, the chosen square cut
 * out (coordinates in the rotated image's pixels), resized to 256×256, WebP. Anything that is not
 * a reasonably sized JPEG, PNG, WebP or GIF is refused.
 */
export async function processAvatar(input: Buffer, crop: Crop): Promise<Buffer> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_SIDE * MAX_SIDE }).metadata();
  } catch {
    throw new AppError('validation_failed', { field: 'image' });
  }
  if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height)
    throw new AppError('validation_failed', { field: 'image' });
  // Orientations 5–8 swap width and height once rotated.
  const swapped = (meta.orientation ?? 1) >= 5;
  const width = swapped ? meta.height : meta.width;
  const height = swapped ? meta.width : meta.height;
  const x = Math.round(crop.x);
  const y = Math.round(crop.y);
  const size = Math.round(crop.size);
  if (size < 16 || x < 0 || y < 0 || x + size > width || y + size > height)
    throw new AppError('validation_failed', { field: 'crop' });
  return sharp(input, { limitInputPixels: MAX_SIDE * MAX_SIDE })
    .rotate()
    .extract({ left: x, top: y, width: size, height: size })
    .resize(AVATAR_SIZE, AVATAR_SIZE)
    .webp({ quality: 82 })
    .toBuffer();
}
