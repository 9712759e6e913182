import { useState, type SyntheticEvent } from 'react';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';
import { contentApi, type StaffSticker, type StickerEdit } from './content-api';
import { filledNames, NamesFields, type Names } from './NamesFields';

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
          {data.list.map((s) => {
            const name = s.names[locale] ?? s.name;
            return (
              <li key={s.sticker_id} className="staff-gift">
                <div className="staff-gift__row">
                  {s.image_url ? (
                    <img className="staff-gift__icon" src={s.image_url} alt="" width={48} height={48} />
                  ) : (
                    <span className="staff-gift__icon staff-gift__icon--none" aria-hidden="true" />
                  )}
                  <div className="staff-gift__what">
                    <strong>
                      <bdi>{name}</bdi>
                    </strong>
                    <span className="muted small">{status(s)}</span>
                  </div>
                  <button
                    type="button"
                    className="btn btn--ghost btn--sm"
                    aria-expanded={open === s.sticker_id}
                    aria-label={t('console.gifts.editThis', { name })}
                    onClick={() => setOpen(open === s.sticker_id ? null : s.sticker_id)}
                  >
                    {t('console.gifts.edit')}
                  </button>
                </div>
                {open === s.sticker_id && <StickerForm sticker={s} onDone={done} onImage={reload} />}
              </li>
            );
          })}
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
  const { toast } = useFeedback();
  const [names, setNames] = useState<Names>((sticker?.names as Names | undefined) ?? {});
  const [sort, setSort] = useState(String(sticker?.sort ?? 100));
  const [active, setActive] = useState(sticker?.active ?? true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const edit: StickerEdit = { names: filledNames(names), sort: Number(sort), active };
    try {
      if (sticker) await contentApi.saveSticker(sticker.sticker_id, edit);
      else await contentApi.createSticker(edit);
      toast(t('console.gifts.saved', { name: edit.names.en ?? '' }));
      onDone();
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const title = sticker ? t('console.gifts.editTitle', { name: sticker.name }) : t('console.stickers.add');
  return (
    <form className="staff-gift__form" onSubmit={(e) => void submit(e)} aria-label={title}>
      <NamesFields legend={t('console.gifts.names')} names={names} onChange={setNames} />
      <div className="staff-gift__numbers">
        <Field
          label={t('console.gifts.order')}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          required
          value={sort}
          onChange={(e) => setSort(e.target.value)}
        />
        <label className="check">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />{' '}
          {t('console.gifts.offer')}
        </label>
      </div>
      {sticker ? (
        <StickerPicture sticker={sticker} onChange={onImage} />
      ) : (
        <p className="muted small">{t('console.stickers.pictureAfter')}</p>
      )}
      <FormError message={error} />
      <div className="staff-gift__actions">
        <BusyButton busy={busy} disabled={busy} className="btn btn--primary">
          {t('console.gifts.save')}
        </BusyButton>
        <button type="button" className="btn btn--ghost" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
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
  const [busy, setBusy] = useState(false);
  const send = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    try {
      setShown(await contentApi.stickerImage(sticker.sticker_id, file));
      toast(t('console.stickers.pictureSaved'));
      onChange?.();
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="staff-gift__files">
      <div className="field">
        <span className="staff-gift__label">{t('console.stickers.picture')}</span>
        {shown.image_url && (
          <img className="staff-gift__icon" src={shown.image_url} alt="" width={64} height={64} />
        )}
        <label className="btn btn--ghost btn--sm staff-gift__pick" aria-busy={busy}>
          {t('console.stickers.choosePicture')}
          <input
            type="file"
            className="sr-only"
            accept="image/png,image/jpeg,image/webp"
            disabled={busy}
            onChange={(e) => void send(e.target.files?.[0])}
          />
        </label>
      </div>
    </div>
  );
}
