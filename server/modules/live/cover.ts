import sharp, { type Metadata } from 'sharp';
import { AppError } from '../../../common/errors';

/** Spec §5: a cover is a GIF, JPG or PNG under 500 KB. */
export const COVER_MAX_BYTES = 500 * 1024;
export const COVER_TYPES = ['image/gif', 'image/jpeg', 'image/png'];
const FORMATS = new Set(['gif', 'jpeg', 'png']);
/** Covers are shown as 3:4 cards. */
export const COVER_ASPECT = 3 / 4;
const OUT = { width: 540, height: 720 };
const MAX_SIDE = 8000;

export interface CoverBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Turns an uploaded image into the live's cover: EXIF-rotated, the chosen 3:4 box cut out,
 * resized to 540×720 WebP. Other formats, other shapes and boxes outside the image are refused.
 */
export async function processCover(input: Buffer, box: CoverBox): Promise<Buffer> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_SIDE * MAX_SIDE }).metadata();
  } catch {
    throw new AppError('cover_invalid');
  }
  if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height)
    throw new AppError('cover_invalid');
  const swapped = (meta.orientation ?? 1) >= 5;
  const width = swapped ? meta.height : meta.width;
  const height = swapped ? meta.width : meta.height;
  const [x, y, w, h] = [box.x, box.y, box.w, box.h].map(Math.round) as [number, number, number, number];
  if (
    w < 30 ||
    h < 40 ||
    x < 0 ||
    y < 0 ||
    x + w > width ||
    y + h > height ||
    Math.abs(w / h - COVER_ASPECT) > 0.02
  )
    throw new AppError('validation_failed', { field: 'crop' });
  return sharp(input, { limitInputPixels: MAX_SIDE * MAX_SIDE })
    .rotate()
    .extract({ left: x, top: y, width: w, height: h })
    .resize(OUT.width, OUT.height)
    .webp({ quality: 80 })
    .toBuffer();
}
