import sharp from 'sharp';
import type { StaffGift, StaffSticker } from '../../../common/api/content';
import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import type { FileStore } from '../../infra/files';
import type { StaffActor, StaffGuard } from '../staff';
import { giftRepo, type GiftEdit, type StickerEdit } from './repo';

/** The icon's side in pixels (the wall shows it at 48–64 CSS px, twice that on a dense screen). */
const ICON_SIDE = 160;

/**
 * What the first bytes of a clip say it is: an ISO base media file ('ftyp' box: MP4) or an EBML
 * header (WebM). The upload's content type alone is the sender's word.
 */
function clipKind(bytes: Buffer): 'mp4' | 'webm' | null {
  if (bytes.length > 12 && bytes.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (bytes.length > 4 && bytes.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  return null;
}

/** Any reasonable picture as a square WebP with its whole picture inside (an icon, a sticker). */
async function squareWebp(bytes: Buffer, field: string): Promise<Buffer> {
  try {
    return await sharp(bytes, { limitInputPixels: 4096 * 4096 })
      .resize(ICON_SIDE, ICON_SIDE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .webp({ quality: 85 })
      .toBuffer();
  } catch {
    throw new AppError('validation_failed', { field });
  }
}

/**
 * The gift catalogue as staff edit it (issue 24 item 6): names per language, price, order,
 * whether it is offered, its animation and icon; and the chat's sticker set the same way. Every change is in the audit log with what it
 * was before, and every node's wall drops what it kept (`changed`), so the next viewer to open a
 * room sees it.
 */
export class GiftCatalogue {
  constructor(
    private readonly db: Db,
    private readonly files: FileStore,
    private readonly staff: Pick<StaffGuard, 'audit'>,
    /** Tells every node that the catalogue changed. */
    private readonly changed: () => Promise<void>,
  ) {}

  /**
   * A change and its audit entry in one transaction (both or neither), then every node told. The
   * entry is what `change` answers, given the row it made.
   */
  async #edit<T>(
    actor: StaffActor,
    change: (
      tx: Queryable,
    ) => Promise<{ row: T; action: string; target: string; before: unknown; after: unknown }>,
  ): Promise<T> {
    const row = await this.db.transaction(async (tx) => {
      const done = await change(tx);
      await this.staff.audit(actor, done.action, done.target, done.before, done.after, null, tx);
      return done.row;
    });
    await this.changed();
    return row;
  }

  list(): Promise<StaffGift[]> {
    return giftRepo.allGifts(this.db);
  }

  async create(actor: StaffActor, edit: GiftEdit): Promise<StaffGift> {
    return this.#edit(actor, async (tx) => {
      const gift = await giftRepo.createGift(tx, edit);
      return { row: gift, action: 'gift.create', target: `gift:${gift.gift_id}`, before: null, after: edit };
    });
  }

  async update(actor: StaffActor, id: number, edit: GiftEdit): Promise<StaffGift> {
    const before = await this.#gift(id);
    return this.#edit(actor, async (tx) => {
      const gift = await giftRepo.updateGift(tx, id, edit);
      if (!gift) throw new AppError('gift_not_found');
      const was = { names: before.names, price: before.price, sort: before.sort, active: before.active };
      return { row: gift, action: 'gift.edit', target: `gift:${id}`, before: was, after: edit };
    });
  }

  /** A new animation (an MP4 or WebM clip): the gift plays it from the next send. */
  async setAnimation(actor: StaffActor, id: number, bytes: Buffer): Promise<StaffGift> {
    const before = await this.#gift(id);
    const kind = clipKind(bytes);
    if (!kind) throw new AppError('validation_failed', { field: 'animation' });
    const url = await this.files.put('gifts', bytes, kind);
    return this.#edit(actor, async (tx) => ({
      row: (await giftRepo.setGiftFiles(tx, id, { media_url: url, format: 'video' })) ?? before,
      action: 'gift.animation',
      target: `gift:${id}`,
      before: { media_url: before.media_url, format: before.format },
      after: { media_url: url, format: 'video' },
    }));
  }

  /** A new icon: any reasonable picture, made a square WebP with its whole picture inside. */
  async setIcon(actor: StaffActor, id: number, bytes: Buffer): Promise<StaffGift> {
    const before = await this.#gift(id);
    const webp = await squareWebp(bytes, 'icon');
    const url = await this.files.put('gifts', webp, 'webp');
    return this.#edit(actor, async (tx) => ({
      row: (await giftRepo.setGiftFiles(tx, id, { icon_url: url })) ?? before,
      action: 'gift.icon',
      target: `gift:${id}`,
      before: { icon_url: before.icon_url },
      after: { icon_url: url },
    }));
  }

  listStickers(): Promise<StaffSticker[]> {
    return giftRepo.allStickers(this.db);
  }

  /** A new sticker: offered once it has a picture. */
  async createSticker(actor: StaffActor, edit: StickerEdit): Promise<StaffSticker> {
    return this.#edit(actor, async (tx) => {
      const sticker = await giftRepo.createSticker(tx, edit);
      const target = `sticker:${sticker.sticker_id}`;
      return { row: sticker, action: 'sticker.create', target, before: null, after: edit };
    });
  }

  async updateSticker(actor: StaffActor, id: number, edit: StickerEdit): Promise<StaffSticker> {
    const before = await this.#sticker(id);
    return this.#edit(actor, async (tx) => {
      const sticker = await giftRepo.updateSticker(tx, id, edit);
      if (!sticker) throw new AppError('not_found');
      const was = { names: before.names, sort: before.sort, active: before.active };
      return { row: sticker, action: 'sticker.edit', target: `sticker:${id}`, before: was, after: edit };
    });
  }

  /** A sticker's picture: made a square WebP like a gift's icon. */
  async setStickerImage(actor: StaffActor, id: number, bytes: Buffer): Promise<StaffSticker> {
    const before = await this.#sticker(id);
    const url = await this.files.put('stickers', await squareWebp(bytes, 'image'), 'webp');
    return this.#edit(actor, async (tx) => ({
      row: (await giftRepo.setStickerImage(tx, id, url)) ?? before,
      action: 'sticker.image',
      target: `sticker:${id}`,
      before: { image_url: before.image_url },
      after: { image_url: url },
    }));
  }

  async #sticker(id: number): Promise<StaffSticker> {
    const sticker = await giftRepo.sticker(this.db, id);
    if (!sticker) throw new AppError('not_found');
    return sticker;
  }

  async #gift(id: number): Promise<StaffGift> {
    const gift = await giftRepo.gift(this.db, id);
    if (!gift) throw new AppError('gift_not_found');
    return gift;
  }
}
