import { useEffect, useRef, useState } from 'react';
import type { PkBattle } from '../../../common/api/pk';
import { formatCount } from '../../../common/format';
import { csrfHeader } from '../../lib/api';
import { useI18n } from '../../i18n/i18n';
import { FollowButton } from '../FollowButton';
import { playHls } from '../hls-play';
import { MediaHttpError, whepPlay, type Session } from '../webrtc';
import { DareText, PkDare } from './PkDare';
import { clock, useTicker, type PkState } from './use-pk';

type Side = PkBattle['a'];

/**
 * A PK battle over a room's video (issue 21): the opponent's video beside this room's (this room
 * on the start side, the opponent on the end side), the battle bar with both scores and the time
 * left, the countdown, and the result with each side's top gifters and the dare. The host of the
 * winning side names the dare from here (`canDare`).
 */
export function PkArena({
  vid,
  state,
  muted,
  hls = false,
  canDare = false,
  onRematch,
}: {
  vid: string;
  state: PkState;
  /** The opponent's sound follows this room's (muted until the viewer unmutes). */
  muted: boolean;
  /** This room plays over LL-HLS (WebRTC cannot serve this viewer): the opponent's does too. */
  hls?: boolean;
  canDare?: boolean;
  /** The studio: invite the same host again once the battle is over. */
  onRematch?: (battle: PkBattle) => void;
}) {
  const { battle, until } = state;
  const { t, locale } = useI18n();
  const now = useTicker(battle.phase !== 'end');
  // At most what the server said (the ticker's time may be from before this state came).
  const left = Math.min(battle.left_ms, until - now);
  const mine: 'a' | 'b' = battle.a.vid === vid ? 'a' : 'b';
  const us = battle[mine];
  const them = battle[mine === 'a' ? 'b' : 'a'];
  const total = us.score + them.score;
  // Each side keeps a sliver of the bar, so a side at 0 still shows its colour.
  const share = total ? Math.min(92, Math.max(8, (us.score / total) * 100)) : 50;
  const phaseText =
    battle.phase === 'await'
      ? t('pk.startsIn', { seconds: Math.max(1, Math.ceil(left / 1000)) })
      : battle.phase === 'start'
        ? t('pk.timeLeft', { time: clock(left) })
        : battle.phase === 'punish'
          ? t('pk.dareTime', { time: clock(left) })
          : t('pk.over');
  return (
    <div className="pk-arena" data-phase={battle.phase}>
      <Opponent side={them} muted={muted} hls={hls} />
      <section className="pk-bar" aria-label={t('pk.title')}>
        <div className="pk-bar__track" aria-hidden="true">
          <span className="pk-bar__us" style={{ inlineSize: `${share}%` }} />
          <span className="pk-bar__them" />
        </div>
        <p className="pk-bar__scores">
          <span className="pk-bar__score pk-bar__score--us">
            <span className="sr-only">
              <bdi>{us.host.nickname}</bdi>{' '}
            </span>
            {formatCount(us.score, locale)}
          </span>
          <span className="pk-bar__phase" role="timer" aria-live="off">
            <span className="pk-bar__label">{t('pk.label')}</span> {phaseText}
          </span>
          <span className="pk-bar__score pk-bar__score--them">
            <span className="sr-only">
              <bdi>{them.host.nickname}</bdi>{' '}
            </span>
            {formatCount(them.score, locale)}
          </span>
        </p>
      </section>
      {battle.phase === 'await' && (
        <p className="pk-arena__countdown" role="status">
          {Math.max(1, Math.ceil(left / 1000))}
        </p>
      )}
      {(battle.phase === 'punish' || battle.phase === 'end') && (
        <PkResult battle={battle} mine={mine} canDare={canDare} onRematch={onRematch} />
      )}
    </div>
  );
}

/**
 * The opponent's video, its host's name and a follow button. Over WebRTC, or over LL-HLS when
 * this room plays that way or the opponent's media nodes are full (media_full).
 */
function Opponent({ side, muted, hls }: { side: Side; muted: boolean; hls: boolean }) {
  const { t } = useI18n();
  const video = useRef<HTMLVideoElement>(null);
  const [full, setFull] = useState(false);
  const overHls = hls || full;
  useEffect(() => {
    let live = true;
    let retry = 0;
    let stop: (() => void) | null = null;
    // The opponent's media may come a moment later (or come back): tried again a few times,
    // unless their live is over (the battle's end follows).
    const again = () => {
      if (live && retry++ < 5) window.setTimeout(play, 1000 * retry);
    };
    const play = () => {
      const el = video.current;
      if (!el) return;
      const started = overHls
        ? playHls(el, `/api/v1/hls/${side.vid}/index.m3u8`, () => {
            stop?.();
            stop = null;
            again();
          }).then((s) => () => s.stop())
        : whepPlay(
            `/api/v1/whep/${side.vid}`,
            (stream) => {
              if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream;
            },
            csrfHeader,
          ).then((s: Session) => () => void s.stop());
      started
        .then((end) => {
          if (live) stop = end;
          else end();
        })
        .catch((err: unknown) => {
          if (err instanceof MediaHttpError && err.status === 410) return;
          if (err instanceof MediaHttpError && err.error === 'media_full') return setFull(true);
          again();
        });
    };
    play();
    return () => {
      live = false;
      stop?.();
    };
  }, [side.vid, overHls]);
  return (
    <div className="pk-arena__opponent">
      <video
        ref={video}
        className="pk-arena__video"
        autoPlay
        playsInline
        muted={muted}
        aria-label={t('pk.opponent', { name: side.host.nickname })}
      />
      <div className="pk-arena__who">
        <span className="pk-arena__avatar" aria-hidden="true">
          {side.host.face ? (
            <img src={side.host.face} alt="" width={28} height={28} />
          ) : (
            side.host.nickname.slice(0, 1)
          )}
        </span>
        <bdi className="pk-arena__name">{side.host.nickname}</bdi>
        <FollowButton uid={side.host.uid} vid={side.vid} />
      </div>
    </div>
  );
}

/** Win, lose or draw from this room's side, each side's top gifters, and the dare. */
function PkResult({
  battle,
  mine,
  canDare,
  onRematch,
}: {
  battle: PkBattle;
  mine: 'a' | 'b';
  canDare: boolean;
  onRematch?: (battle: PkBattle) => void;
}) {
  const { t } = useI18n();
  const us = battle[mine];
  const them = battle[mine === 'a' ? 'b' : 'a'];
  const winner = battle.winner === 'draw' || !battle.winner ? null : battle[battle.winner];
  const outcome = battle.winner === 'draw' ? 'draw' : battle.winner === mine ? 'win' : 'lose';
  const loser = winner === us ? them : us;
  return (
    <section className={`pk-result pk-result--${outcome}`} aria-labelledby={`pk-result-${battle.id}`}>
      <h2 id={`pk-result-${battle.id}`} className="pk-result__title">
        {outcome === 'draw' ? t('pk.draw') : outcome === 'win' ? t('pk.win') : t('pk.lose')}
      </h2>
      {winner && (
        <p className="pk-result__winner">
          {t('pk.wins', { name: winner.host.nickname })}
          {battle.reason === 'forfeit' && <> · {t('pk.forfeit', { name: loser.host.nickname })}</>}
          {battle.reason === 'dropped' && <> · {t('pk.dropped', { name: loser.host.nickname })}</>}
        </p>
      )}
      <div className="pk-result__mvp">
        {[us, them].map((side) => (
          <div key={side.vid} className="pk-result__side">
            <h3>
              {t('pk.mvp')} · <bdi>{side.host.nickname}</bdi>
            </h3>
            {side.mvp.length === 0 ? (
              <p className="muted">{t('pk.noGifts')}</p>
            ) : (
              <ol>
                {side.mvp.map((m) => (
                  <li key={m.uid}>
                    <bdi>{m.nickname}</bdi>{' '}
                    <span className="muted">{t('pk.points', { count: m.points })}</span>
                  </li>
                ))}
              </ol>
            )}
          </div>
        ))}
      </div>
      {battle.phase === 'punish' && <PkDare battle={battle} mine={mine} canDare={canDare} />}
      {battle.dare && battle.phase === 'end' && <DareText battle={battle} loser={loser.host.nickname} />}
      {onRematch && battle.phase === 'end' && (
        <button
          type="button"
          className="btn btn--primary pk-result__rematch"
          onClick={() => onRematch(battle)}
        >
          {t('pk.rematch', { name: them.host.nickname })}
        </button>
      )}
    </section>
  );
}
