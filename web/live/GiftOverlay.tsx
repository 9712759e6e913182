import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { queueGift, type Shown } from './gift-queue';
import { useAuth } from '../lib/session';
import { realtime } from './realtime';
import { giftName, loadGifts, type Gift } from './room-api';

/** How many gifts wait at most; in a flood the oldest are dropped (they were shown in the chat). */
const QUEUE = 20;

/**
 * Gift animations over the video, one after another, for everyone in the room: the gift's clip
 * (drawn on black, blended with `screen` so black disappears) and who sent it. The same gift sent
 * again by the same person while theirs is on screen or next in line adds to a combo counter
 * instead of waiting its turn (as live apps count a tapped-again gift).
 */
export function GiftOverlay({ vid }: { vid: string }) {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  // Read by the room's handler as it is when a gift comes (signing in does not join again).
  const me = useRef<number | null>(null);
  useEffect(() => {
    me.current = user?.uid ?? null;
  }, [user]);
  const [queue, setQueue] = useState<Shown[]>([]);
  const [gifts, setGifts] = useState<Gift[]>([]);

  useEffect(() => {
    // Only gifts sent from now on play (history is for the chat).
    return realtime().join(vid, {
      joined: () => undefined,
      event: (e) => {
        if (e.t !== 'gift') return;
        // One's own gift plays next, whatever the room is sending.
        setQueue((q) => queueGift(q, e, QUEUE, e.from.uid === me.current));
        void loadGifts()
          .then(setGifts)
          .catch(() => undefined);
      },
      count: () => undefined,
    });
  }, [vid]);

  const current = queue[0];
  const gift = current ? gifts.find((g) => g.gift_id === current.gift_id) : undefined;
  const next = () => setQueue((q) => q.slice(1));
  const clip = gift?.media_url;
  useEffect(() => {
    // A gift without a clip shows its caption for a moment.
    if (!current || clip) return;
    const timer = window.setTimeout(() => setQueue((q) => q.slice(1)), 2000);
    return () => window.clearTimeout(timer);
  }, [current, clip]);
  if (!current) return null;
  return (
    <div className="gift-overlay" aria-live="polite">
      {gift?.media_url && (
        <video
          key={current.id}
          className="gift-overlay__clip"
          src={gift.media_url}
          autoPlay
          muted
          playsInline
          onEnded={next}
          onError={next}
        />
      )}
      <p className="gift-overlay__caption">
        {current.to
          ? t('gifts.sentTo', {
              name: current.from.name,
              gift: gift ? giftName(locale, gift) : '',
              count: current.count,
              to: current.to.name,
            })
          : t('gifts.sent', {
              name: current.from.name,
              gift: gift ? giftName(locale, gift) : '',
              count: current.count,
            })}
      </p>
      {current.combo > current.count && (
        // Keyed by the total, so that each new one bumps it again.
        <p key={current.combo} className="gift-overlay__combo">
          <bdi>{t('gifts.comboCount', { count: current.combo })}</bdi>
        </p>
      )}
    </div>
  );
}
