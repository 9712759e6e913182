import { useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';
import { giftName } from '../live/room-api';
import { Field } from '../ui/fields';
import { CatalogueForm, CatalogueItem, FilePick } from '../staff/Catalogue';
import { Console } from '../staff/Console';
import { Stickers } from '../staff/Stickers';
import { contentApi, type StaffGift } from '../staff/content-api';
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
  const done = () => {
    setOpen(null);
    reload();
  };
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
      {open === 'new' && <GiftForm gift={null} onDone={done} />}
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <ul className="staff-gifts">
          {data.list.map((g) => (
            <CatalogueItem
              key={g.gift_id}
              icon={g.icon_url}
              name={giftName(locale, g)}
              detail={
                <>
                  {t('console.gifts.priceIs', { count: g.price })} · {status(g)}
                </>
              }
              open={open === g.gift_id}
              onToggle={() => setOpen(open === g.gift_id ? null : g.gift_id)}
            >
              <GiftForm gift={g} onDone={done} onFiles={reload} />
            </CatalogueItem>
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
  const [price, setPrice] = useState(String(gift?.price ?? 10));
  return (
    <CatalogueForm
      title={gift ? t('console.gifts.editTitle', { name: gift.name }) : t('console.gifts.add')}
      item={gift}
      extra={
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
      }
      files={
        gift ? (
          <GiftFiles gift={gift} onChange={onFiles} />
        ) : (
          <p className="muted small">{t('console.gifts.filesAfter')}</p>
        )
      }
      save={async (base) => {
        const edit = { ...base, price: Number(price) };
        if (gift) await contentApi.saveGift(gift.gift_id, edit);
        else await contentApi.createGift(edit);
      }}
      onDone={onDone}
    />
  );
}

/** The gift's clip and icon, each replaced by choosing a file (sent at once). */
function GiftFiles({ gift, onChange }: { gift: StaffGift; onChange?: (() => void) | undefined }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [shown, setShown] = useState(gift);
  const saved = (g: StaffGift, message: string) => {
    setShown(g);
    toast(message);
    onChange?.();
  };
  return (
    <div className="staff-gift__files">
      <FilePick
        label={t('console.gifts.animation')}
        preview={
          shown.media_url ? (
            <video className="staff-gift__clip" src={shown.media_url} muted loop autoPlay playsInline />
          ) : (
            <p className="muted small">{t('console.gifts.noAnimation')}</p>
          )
        }
        choose={t('console.gifts.chooseAnimation')}
        accept="video/mp4,video/webm"
        upload={async (file) =>
          saved(await contentApi.giftAnimation(gift.gift_id, file), t('console.gifts.animationSaved'))
        }
      />
      <FilePick
        label={t('console.gifts.icon')}
        preview={
          shown.icon_url && (
            <img className="staff-gift__icon" src={shown.icon_url} alt="" width={64} height={64} />
          )
        }
        choose={t('console.gifts.chooseIcon')}
        accept="image/png,image/jpeg,image/webp"
        upload={async (file) =>
          saved(await contentApi.giftIcon(gift.gift_id, file), t('console.gifts.iconSaved'))
        }
      />
    </div>
  );
}
