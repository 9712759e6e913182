import { useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';
import { CatalogueForm, CatalogueItem, FilePick } from './Catalogue';
import { contentApi, type StaffSticker } from './content-api';

/** The chat's sticker set on /staff/gifts: names per language, order, offered, picture. */
export function Stickers() {
  const { t, locale } = useI18n();
  const { data, error, loading, reload } = useApiData<{ list: StaffSticker[] }>('/api/v1/staff/stickers');
  const [open, setOpen] = useState<number | 'new' | null>(null);
  const done = () => {
    setOpen(null);
    reload();
  };
  const status = (s: StaffSticker) =>
    !s.active
      ? t('console.gifts.hidden')
      : !s.image_url
        ? t('console.stickers.noPicture')
        : t('console.gifts.offered');
  return (
    <section className="staff-section" aria-labelledby="staff-stickers">
      <header className="staff-head">
        <h2 id="staff-stickers">{t('console.stickers.title')}</h2>
        <button type="button" className="btn btn--ghost" onClick={() => setOpen('new')}>
          {t('console.stickers.add')}
        </button>
      </header>
      <p className="muted">{t('console.stickers.help')}</p>
      {open === 'new' && <StickerForm sticker={null} onDone={done} />}
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <ul className="staff-gifts">
          {data.list.map((s) => (
            <CatalogueItem
              key={s.sticker_id}
              icon={s.image_url}
              name={s.names[locale] ?? s.name}
              detail={status(s)}
              open={open === s.sticker_id}
              onToggle={() => setOpen(open === s.sticker_id ? null : s.sticker_id)}
            >
              <StickerForm sticker={s} onDone={done} onImage={reload} />
            </CatalogueItem>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A sticker's form: names, order, offered; its picture once it exists. */
function StickerForm({
  sticker,
  onDone,
  onImage,
}: {
  sticker: StaffSticker | null;
  onDone: () => void;
  onImage?: () => void;
}) {
  const { t } = useI18n();
  return (
    <CatalogueForm
      title={sticker ? t('console.gifts.editTitle', { name: sticker.name }) : t('console.stickers.add')}
      item={sticker}
      files={
        sticker ? (
          <StickerPicture sticker={sticker} onChange={onImage} />
        ) : (
          <p className="muted small">{t('console.stickers.pictureAfter')}</p>
        )
      }
      save={async (edit) => {
        if (sticker) await contentApi.saveSticker(sticker.sticker_id, edit);
        else await contentApi.createSticker(edit);
      }}
      onDone={onDone}
    />
  );
}

/** The sticker's picture, replaced by choosing a file (sent at once). */
function StickerPicture({
  sticker,
  onChange,
}: {
  sticker: StaffSticker;
  onChange?: (() => void) | undefined;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [shown, setShown] = useState(sticker);
  return (
    <div className="staff-gift__files">
      <FilePick
        label={t('console.stickers.picture')}
        preview={
          shown.image_url && (
            <img className="staff-gift__icon" src={shown.image_url} alt="" width={64} height={64} />
          )
        }
        choose={t('console.stickers.choosePicture')}
        accept="image/png,image/jpeg,image/webp"
        upload={async (file) => {
          setShown(await contentApi.stickerImage(sticker.sticker_id, file));
          toast(t('console.stickers.pictureSaved'));
          onChange?.();
        }}
      />
    </div>
  );
}
