import type { Answer } from '../../common/api/envelope';
import type { sendGiftAnswer } from '../../common/api/gifts';
import type { walletAnswer } from '../../common/api/wallet';
import { useEffect, useRef, useState } from 'react';
import { formatCount } from '../../common/format';
import { api, ApiError } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { rechargeHref } from '../wallet/format';
import { useIntentKey } from '../wallet/intent';
import { Avatar } from './PersonalCard';
import { realtime } from './realtime';
import { giftName, useGifts } from './room-api';

/** Combos offered with one tap (the server takes 1 to 99). */
const COMBOS = [1, 10, 99] as const;

/** Someone a gift can go to in an audio room: its host or a speaker on its seats. */
export interface GiftRecipient {
  uid: number;
  nickname: string;
  face: string | null;
}

/**
 * The gift wall of a live room: the catalogue, the viewer's coins, a combo, Send. One send (this
 * gift, this combo, this room) keeps its key until the server answers it for sure, so sending
 * again after a lost answer can never pay twice; a new send gets a new key.
 */
export function GiftWall({
  vid,
  recipients,
  host,
}: {
  vid: string;
  recipients?: readonly GiftRecipient[];
  /** The room's host, when gifts may go to others too (an audio room's speakers). */
  host?: number;
}) {
  const { t, locale } = useI18n();
  const { user, requireLogin } = useAuth();
  const { toast } = useFeedback();
  const { gifts, error } = useGifts();
  const [coins, setCoins] = useState<number | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  const [combo, setCombo] = useState<(typeof COMBOS)[number]>(1);
  const [sending, setSending] = useState(false);
  const [pickedTo, setPickedTo] = useState<number | null>(null);
  // The one chosen, while they are still on a seat; the first (the host, unless it is the reader)
  // otherwise. The server takes the host's uid as no `to`.
  const to = recipients?.find((r) => r.uid === pickedTo) ?? recipients?.[0];
  /** The server said the coins were not enough (the balance shown may be old). */
  const [refused, setRefused] = useState(false);
  const intent = useIntentKey();
  /** What the current key is for: another gift, combo or room is another send. */
  const intended = useRef('');

  useEffect(() => {
    if (!user) return;
    let live = true;
    const read = () => {
      api<Answer<typeof walletAnswer>>('GET', '/api/v1/wallet')
        .then((w) => {
          if (!live) return;
          setCoins(w.balances.coin);
          setRefused(false);
        })
        .catch(() => undefined);
    };
    read();
    // Back from recharging in another tab: show the new balance.
    window.addEventListener('focus', read);
    return () => {
      live = false;
      window.removeEventListener('focus', read);
    };
  }, [user]);

  const send = async () => {
    if (!user) return requireLogin(t('error.sign_in_first'));
    if (picked === null) return;
    const what = `${user.uid}:${vid}:${picked}:${combo}:${to?.uid ?? ''}`;
    if (intended.current !== what) {
      intended.current = what;
      intent.renew();
    }
    setSending(true);
    try {
      const r = await api<Answer<typeof sendGiftAnswer>>('POST', '/api/v1/gifts/send', {
        vid,
        gift_id: picked,
        count: combo,
        key: intent.current(),
        ...(to === undefined ? {} : { to: to.uid }),
      });
      intent.renew();
      setCoins(r.balances.coin);
      const gift = gifts?.find((g) => g.gift_id === picked);
      // Shown here at once, as the room will show it (in a flood, the room may not show it to all).
      if (!r.replay && gift)
        realtime().sent({
          t: 'gift',
          id: `sent-${r.tx_id}`,
          room: vid,
          at: Date.now(),
          from: { uid: user.uid, name: user.nickname, role: 'viewer' },
          gift_id: picked,
          count: combo,
          coins: gift.price * combo,
          tx_id: r.tx_id,
          ...(to && to.uid !== host ? { to: { uid: to.uid, name: to.nickname } } : {}),
        });
    } catch (err) {
      // Refused for sure (not enough coins, the host offline…): nothing was paid, the next try is
      // a new send. No answer, or a server failure: it may have gone through, so the same key.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) intent.renew();
      if (err instanceof ApiError && err.error === 'insufficient_coins') setRefused(true);
      else toast(errorMessage(t, err));
    } finally {
      setSending(false);
    }
  };

  if (error)
    return (
      <p className="form-error" role="alert">
        {errorMessage(t, error)}
      </p>
    );
  if (!gifts) return <div className="spinner" role="progressbar" aria-label={t('common.loading')} />;
  const chosen = gifts.find((g) => g.gift_id === picked);
  // Not enough coins for this gift: said at once, with the way to recharge. Send stays on (the
  // balance shown may be older than a recharge in another tab); the server has the last word.
  const short = refused || (coins !== null && chosen !== undefined && combo * chosen.price > coins);
  return (
    <div className="gift-wall">
      {recipients && recipients.length > 0 && (
        <div className="gift-wall__to" role="radiogroup" aria-label={t('gifts.sendTo')}>
          {recipients.map((r) => (
            <button
              key={r.uid}
              type="button"
              role="radio"
              aria-checked={r === to}
              className="gift-wall__recipient"
              onClick={() => setPickedTo(r.uid)}
            >
              <Avatar face={r.face} name={r.nickname} size={28} />
              <bdi>{r.nickname}</bdi>
            </button>
          ))}
        </div>
      )}
      <ul className="gift-wall__grid" role="listbox" aria-label={t('gifts.title')}>
        {gifts.map((g) => (
          <li key={g.gift_id} role="option" aria-selected={picked === g.gift_id}>
            <button
              type="button"
              className="gift-wall__gift"
              onClick={() => {
                setPicked(g.gift_id);
                setRefused(false);
              }}
            >
              {g.icon_url && <img src={g.icon_url} alt="" width={48} height={48} loading="lazy" />}
              <span className="gift-wall__name">{giftName(locale, g)}</span>
              <span className="gift-wall__price">
                {t('room.coins', { count: g.price, formatted: formatCount(g.price, locale) })}
              </span>
            </button>
          </li>
        ))}
      </ul>
      <div className="gift-wall__bar">
        <span className="gift-wall__balance">
          {user
            ? coins === null
              ? '…'
              : t('gifts.balance', { count: coins, formatted: formatCount(coins, locale) })
            : t('gifts.signIn')}
        </span>
        <div className="segmented" role="group" aria-label={t('gifts.combo')}>
          {COMBOS.map((n) => (
            <button
              key={n}
              type="button"
              aria-pressed={combo === n}
              onClick={() => {
                setCombo(n);
                setRefused(false);
              }}
            >
              <bdi dir="ltr">×{n}</bdi>
            </button>
          ))}
        </div>
        <button
          type="button"
          className="btn btn--primary btn--sm"
          disabled={sending || (Boolean(user) && !chosen)}
          onClick={() => void send()}
        >
          {chosen
            ? t('gifts.sendThis', { gift: giftName(locale, chosen), count: combo * chosen.price })
            : t('gifts.send')}
        </button>
      </div>
      {user && short && (
        <p className="gift-wall__short" role="status">
          {t('error.insufficient_coins')}{' '}
          {/* The payment app is its own page: a new tab keeps the live playing here. */}
          <a
            href={rechargeHref(locale)}
            target="_blank"
            rel="noopener"
            className="btn btn--primary btn--sm"
            aria-label={t('a11y.opensNewTab', { label: t('wallet.recharge') })}
          >
            {t('wallet.recharge')}
          </a>
        </p>
      )}
    </div>
  );
}
