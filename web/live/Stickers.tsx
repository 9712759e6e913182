import { useEffect, useId, useRef, useState } from 'react';
import type { Sticker } from '../../common/api/gifts';
import { useI18n } from '../i18n/i18n';
import { loadOnce } from './room-api';

/** The sticker set (spec giftV2H5/giftStickers), loaded once per page on first need. */
const loadStickers = loadOnce<Sticker>('/api/v1/gifts/stickers');

function useStickers(load: boolean): Sticker[] | null {
  const [list, setList] = useState<Sticker[] | null>(null);
  useEffect(() => {
    if (!load) return;
    let live = true;
    loadStickers().then(
      (l) => live && setList(l),
      () => live && setList([]),
    );
    return () => {
      live = false;
    };
  }, [load]);
  return list;
}

/** A sticker's name in the page's language (alt text), its English name otherwise. */
function stickerName(locale: string, s: { name: string; names: Record<string, string> }): string {
  return s.names[locale] ?? s.name;
}

/** A sticker in a chat line. */
export function StickerImage({ id }: { id: number }) {
  const { t, locale } = useI18n();
  const sticker = useStickers(true)?.find((s) => s.sticker_id === id);
  return (
    <img
      className="chat__sticker"
      src={sticker?.image_url ?? `/stickers/${id}.webp`}
      alt={sticker ? stickerName(locale, sticker) : t('stickers.title')}
      width={64}
      height={64}
      loading="lazy"
    />
  );
}

/** The sticker button beside the chat box: a grid of the set; picking one sends it. */
export function StickerPicker({ onPick, disabled }: { onPick: (id: number) => void; disabled: boolean }) {
  const { t, locale } = useI18n();
  const [open, setOpen] = useState(false);
  const list = useStickers(open);
  const panel = useId();
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <div className="stickers">
      <button
        ref={button}
        type="button"
        className="btn chat__sticker-button"
        aria-expanded={open}
        aria-controls={panel}
        aria-label={t('stickers.title')}
        title={t('stickers.title')}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden="true">☺</span>
      </button>
      {open && (
        <div
          id={panel}
          className="stickers__panel"
          role="group"
          aria-label={t('stickers.title')}
          onKeyDown={(e) => {
            if (e.key === 'Escape') close();
          }}
        >
          {list === null && <p className="muted">{t('stickers.loading')}</p>}
          {list?.length === 0 && <p className="muted">{t('stickers.none')}</p>}
          {list?.map((s) => (
            <button
              key={s.sticker_id}
              type="button"
              className="stickers__item"
              onClick={() => {
                onPick(s.sticker_id);
                close();
              }}
            >
              <img src={s.image_url} alt={stickerName(locale, s)} width={48} height={48} />
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
