import { useEffect, useState } from 'react';
import { formatCount } from '../../common/format';
import { htmlLang } from '../../common/locales';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { NoContent } from '../ui/feedback';
import { useI18n } from '../i18n/i18n';
import { fromServer, withEvent, withOlder, type GiftLog, type GiftPage } from './gift-log';
import { realtime } from './realtime';
import { giftName, useGifts } from './room-api';
import { throttle } from './throttle';

/** The newest page is read again after gifts arrive, at most this often (it settles the totals). */
const RELOAD_AFTER_GIFT_MS = 2000;
const PAGE = 50;

/**
 * The studio's Gifts tab: the gifts of this broadcast, newest first, with totals. Loaded from the
 * server when opened; the room's gift events add new ones at once, and the newest page is read
 * again shortly after (gift-log.ts keeps each gift counted once).
 */
export function ReceivedGifts({ vid }: { vid: string }) {
  const { t, locale } = useI18n();
  const { gifts } = useGifts();
  const [log, setLog] = useState<GiftLog | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);

  useEffect(() => {
    let live = true;
    let asked = 0;
    const load = () => {
      const n = ++asked;
      api<GiftPage>('GET', `/api/v1/live/${vid}/gifts?limit=${PAGE}`)
        .then((page) => {
          if (!live || n !== asked) return;
          setLog((old) => fromServer(old, page));
          setError(null);
        })
        .catch((err: unknown) => live && n === asked && setError(errorMessage(t, err)));
    };
    const again = throttle(load, RELOAD_AFTER_GIFT_MS);
    again.call();
    const leave = realtime().join(vid, {
      // A rejoin brings the gifts sent while the connection was down.
      joined: (events) => {
        const sent = events.filter((e) => e.t === 'gift');
        if (!sent.length) return;
        setLog((old) => (old ? sent.reduce(withEvent, old) : old));
        again.call();
      },
      event: (e) => {
        if (e.t !== 'gift') return;
        setLog((old) => (old ? withEvent(old, e) : old));
        again.call();
      },
      count: () => undefined,
    });
    return () => {
      live = false;
      again.cancel();
      leave();
    };
  }, [vid, t]);

  const older = async () => {
    const last = log?.rows.at(-1);
    if (!last) return;
    setLoadingOlder(true);
    try {
      const page = await api<GiftPage>('GET', `/api/v1/live/${vid}/gifts?limit=${PAGE}&before=${last.tx_id}`);
      setLog((old) => (old ? withOlder(old, page) : old));
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setLoadingOlder(false);
    }
  };

  if (!log)
    return error ? (
      <p className="form-error" role="alert">
        {error}
      </p>
    ) : (
      <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
    );
  const { totals } = log;
  // Gifts of this live: the time of day is what the host remembers.
  const clock = new Intl.DateTimeFormat(htmlLang(locale), { timeStyle: 'short' });
  const facts: [string, number][] = [
    [t('gifts.title'), totals.gifts],
    [t('wallet.coinsLabel'), totals.coins],
    [t('wallet.diamondsLabel'), totals.diamonds],
    [t('studio.giftsSenders'), totals.senders],
  ];
  return (
    <div className="gift-log">
      <dl className="gift-log__totals" aria-label={t('studio.giftsTotals')}>
        {facts.map(([label, n]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{formatCount(n, locale)}</dd>
          </div>
        ))}
      </dl>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {log.rows.length === 0 ? (
        <NoContent>
          <p className="muted small">{t('gifts.received')}</p>
        </NoContent>
      ) : (
        <ol className="gift-log__list" aria-label={t('studio.tabGifts')}>
          {log.rows.map((r) => {
            const gift = gifts?.find((g) => g.gift_id === r.gift_id);
            return (
              <li key={r.tx_id} className="gift-log__row">
                {gift?.icon_url ? (
                  <img className="gift-log__icon" src={gift.icon_url} alt="" width={36} height={36} />
                ) : (
                  <span className="gift-log__icon" aria-hidden="true" />
                )}
                <span className="gift-log__what">
                  {/* People write names in their own script: the ellipsis goes at the name's end. */}
                  <span className="gift-log__who" dir="auto">
                    {r.from?.nickname ?? t('studio.giftsSomeone')}
                  </span>
                  <span className="muted small">
                    {t('studio.giftsLine', {
                      gift: gift ? giftName(locale, gift) : `#${r.gift_id}`,
                      count: r.count,
                    })}
                  </span>
                </span>
                <span className="gift-log__coins">
                  {t('room.coins', { count: r.coins, formatted: formatCount(r.coins, locale) })}
                  <time className="muted small" dateTime={r.at}>
                    {clock.format(new Date(r.at))}
                  </time>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {log.more && (
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          disabled={loadingOlder}
          onClick={() => void older()}
        >
          {t('studio.giftsOlder')}
        </button>
      )}
    </div>
  );
}
