import { useState, type SyntheticEvent } from 'react';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { giftName } from '../live/room-api';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { Console } from '../staff/Console';
import { filledNames, NamesFields, type Names } from '../staff/NamesFields';
import { Stickers } from '../staff/Stickers';
import { contentApi, type GiftEdit, type StaffGift } from '../staff/content-api';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/gifts: the gift catalogue (names per language, price, order, offered, animation, icon),
 * and the chat's stickers below it.
 */
export default function StaffGifts() {
  return (
    <Console page="gifts" needs="content.edit">
      {() => <GiftsPage />}
    </Console>
  );
}

function GiftsPage() {
  const { t, locale } = useI18n();
  const { data, error, loading, reload } = useApiData<{ list: StaffGift[] }>('/api/v1/staff/gifts');
  /** The gift being edited ('new' for one being added). */
  const [open, setOpen] = useState<number | 'new' | null>(null);
  const status = (g: StaffGift) =>
    !g.active
      ? t('console.gifts.hidden')
      : g.format !== 'video' || !g.media_url
        ? t('console.gifts.cannotPlay')
        : t('console.gifts.offered');
  return (
    <>
      <header className="page-head staff-head">
        <h1>{t('console.nav.gifts')}</h1>
        <button type="button" className="btn btn--primary" onClick={() => setOpen('new')}>
          {t('console.gifts.add')}
        </button>
      </header>
      <p className="muted">{t('console.gifts.help')}</p>
      {open === 'new' && (
        <GiftForm
          gift={null}
          onDone={() => {
            setOpen(null);
            reload();
          }}
        />
      )}
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <ul className="staff-gifts">
          {data.list.map((g) => (
            <li key={g.gift_id} className="staff-gift">
              <div className="staff-gift__row">
                {g.icon_url ? (
                  <img className="staff-gift__icon" src={g.icon_url} alt="" width={48} height={48} />
                ) : (
                  <span className="staff-gift__icon staff-gift__icon--none" aria-hidden="true" />
                )}
                <div className="staff-gift__what">
                  <strong>
                    <bdi>{giftName(locale, g)}</bdi>
                  </strong>
                  <span className="muted small">
                    {t('console.gifts.priceIs', { count: g.price })} · {status(g)}
                  </span>
                </div>
                <button
                  type="button"
                  className="btn btn--ghost btn--sm"
                  aria-expanded={open === g.gift_id}
                  aria-label={t('console.gifts.editThis', { name: giftName(locale, g) })}
                  onClick={() => setOpen(open === g.gift_id ? null : g.gift_id)}
                >
                  {t('console.gifts.edit')}
                </button>
              </div>
              {open === g.gift_id && (
                <GiftForm
                  gift={g}
                  onDone={() => {
                    setOpen(null);
                    reload();
                  }}
                  onFiles={reload}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      <Stickers />
    </>
  );
}

/** A gift's form: its names in every language, price, order and offer; its clip and icon once it exists. */
function GiftForm({
  gift,
  onDone,
  onFiles,
}: {
  gift: StaffGift | null;
  onDone: () => void;
  onFiles?: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [names, setNames] = useState<Names>((gift?.names as Names | undefined) ?? {});
  const [price, setPrice] = useState(String(gift?.price ?? 10));
  const [sort, setSort] = useState(String(gift?.sort ?? 100));
  const [active, setActive] = useState(gift?.active ?? true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const edit: GiftEdit = {
      names: filledNames(names),
      price: Number(price),
      sort: Number(sort),
      active,
    };
    try {
      if (gift) await contentApi.saveGift(gift.gift_id, edit);
      else await contentApi.createGift(edit);
      toast(t('console.gifts.saved', { name: edit.names.en ?? '' }));
      onDone();
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const title = gift ? t('console.gifts.editTitle', { name: gift.name }) : t('console.gifts.add');
  return (
    <form className="staff-gift__form" onSubmit={(e) => void submit(e)} aria-label={title}>
      <NamesFields legend={t('console.gifts.names')} names={names} onChange={setNames} />
      <div className="staff-gift__numbers">
        <Field
          label={t('console.gifts.price')}
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          required
          value={price}
          onChange={(e) => setPrice(e.target.value)}
        />
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
      {gift ? (
        <GiftFiles gift={gift} onChange={onFiles} />
      ) : (
        <p className="muted small">{t('console.gifts.filesAfter')}</p>
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

/** The gift's clip and icon, each replaced by choosing a file (sent at once). */
function GiftFiles({ gift, onChange }: { gift: StaffGift; onChange?: () => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [shown, setShown] = useState(gift);
  const [busy, setBusy] = useState<'animation' | 'icon' | null>(null);
  const send = async (what: 'animation' | 'icon', file: File | undefined) => {
    if (!file) return;
    setBusy(what);
    try {
      setShown(
        what === 'animation'
          ? await contentApi.giftAnimation(gift.gift_id, file)
          : await contentApi.giftIcon(gift.gift_id, file),
      );
      toast(t(what === 'animation' ? 'console.gifts.animationSaved' : 'console.gifts.iconSaved'));
      onChange?.();
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="staff-gift__files">
      <div className="field">
        <span className="staff-gift__label">{t('console.gifts.animation')}</span>
        {shown.media_url ? (
          <video className="staff-gift__clip" src={shown.media_url} muted loop autoPlay playsInline />
        ) : (
          <p className="muted small">{t('console.gifts.noAnimation')}</p>
        )}
        <label className="btn btn--ghost btn--sm staff-gift__pick" aria-busy={busy === 'animation'}>
          {t('console.gifts.chooseAnimation')}
          <input
            type="file"
            className="sr-only"
            accept="video/mp4,video/webm"
            disabled={busy !== null}
            onChange={(e) => void send('animation', e.target.files?.[0])}
          />
        </label>
      </div>
      <div className="field">
        <span className="staff-gift__label">{t('console.gifts.icon')}</span>
        {shown.icon_url && (
          <img className="staff-gift__icon" src={shown.icon_url} alt="" width={64} height={64} />
        )}
        <label className="btn btn--ghost btn--sm staff-gift__pick" aria-busy={busy === 'icon'}>
          {t('console.gifts.chooseIcon')}
          <input
            type="file"
            className="sr-only"
            accept="image/png,image/jpeg,image/webp"
            disabled={busy !== null}
            onChange={(e) => void send('icon', e.target.files?.[0])}
          />
        </label>
      </div>
    </div>
  );
}
