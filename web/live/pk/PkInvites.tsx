import { useEffect, useRef, useState } from 'react';
import type { Answer } from '../../../common/api/envelope';
import type { PkHost, PkInvite, pkHostsAnswer, pkSettingsSchema } from '../../../common/api/pk';
import { PK_ROUND_MINUTES } from '../../../common/pk';
import { api } from '../../lib/api';
import { errorMessage } from '../../lib/errors';
import { useFeedback } from '../../lib/feedback';
import { useI18n } from '../../i18n/i18n';
import { Modal } from '../../ui/Modal';
import { realtime } from '../realtime';
import { useTicker } from './use-pk';

/**
 * The latest invitation to or from this host, as their own topic tells it; `onChange` hears
 * each change as it comes.
 */
function usePkInvite(
  uid: number,
  onChange: (i: PkInvite) => void,
): [(PkInvite & { until: number }) | null, () => void] {
  const [invite, setInvite] = useState<(PkInvite & { until: number }) | null>(null);
  const heard = useRef(onChange);
  useEffect(() => {
    heard.current = onChange;
  });
  useEffect(
    () =>
      realtime().inbox(uid, {
        notification: () => undefined,
        reconnected: () => undefined,
        pkInvite: (i) => {
          setInvite({ ...i, until: performance.now() + i.left_ms });
          heard.current(i);
        },
      }),
    [uid],
  );
  return [invite, () => setInvite(null)];
}

/**
 * The studio's PK: a button that opens the finder (live hosts who take battles, by name, friends
 * only, the round's length, invite; whether this host takes invitations), what became of an
 * invitation sent, and an invitation received (accept or decline within its 10 s).
 */
export function PkInvites({ uid, battling }: { uid: number; battling: boolean }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [open, setOpen] = useState(false);
  // What became of an invitation sent: said once, and the finder closes when it is accepted.
  const [invite, dismiss] = usePkInvite(uid, (i) => {
    if (i.from.uid !== uid) return;
    if (i.phase === 'declined') toast(t('pk.declined', { name: i.to.nickname }));
    if (i.phase === 'expired') toast(t('pk.expired', { name: i.to.nickname }));
    if (i.phase === 'await') setOpen(false);
  });
  const now = useTicker(invite?.phase === 'invited');
  // At most what the server said (the ticker's time may be from before the invitation came).
  const secondsLeft = invite
    ? Math.max(0, Math.ceil(Math.min(invite.left_ms, invite.until - now) / 1000))
    : 0;
  const sent = invite?.from.uid === uid;

  const answer = async (accept: boolean) => {
    if (!invite) return;
    try {
      await api('POST', `/api/v1/pk/invites/${invite.id}/${accept ? 'accept' : 'decline'}`);
    } catch (err) {
      toast(errorMessage(t, err));
    }
    dismiss();
  };

  const incoming = invite && !sent && invite.phase === 'invited' && secondsLeft > 0;
  return (
    <>
      {!battling && (
        <button
          type="button"
          className="round-button round-button--pk"
          // The visible "PK" is part of the name (a name that leaves out what is shown fails
          // label-in-name for people who speak to their browser).
          aria-label={`${t('pk.label')} · ${t('pk.findTitle')}`}
          title={t('pk.findTitle')}
          onClick={() => setOpen(true)}
        >
          {t('pk.label')}
        </button>
      )}
      {open && !battling && (
        <Modal label={t('pk.findTitle')} onClose={() => setOpen(false)} className="sheet pk-finder">
          <h2 className="sheet__title">{t('pk.findTitle')}</h2>
          {sent && invite.phase === 'invited' && secondsLeft > 0 ? (
            <Waiting invite={invite} seconds={secondsLeft} />
          ) : (
            <Finder />
          )}
        </Modal>
      )}
      {incoming && (
        <Modal label={t('pk.invitedTitle')} onClose={() => void answer(false)} className="pk-invited">
          <h2>{t('pk.invitedTitle')}</h2>
          <p>
            {t('pk.invitedText', {
              name: invite.from.nickname,
              minutes: Math.round(invite.round_seconds / 60),
            })}
          </p>
          <p className="muted" role="timer">
            {t('pk.answerWithin', { seconds: secondsLeft })}
          </p>
          <div className="pk-invited__actions">
            <button type="button" className="btn" onClick={() => void answer(false)}>
              {t('pk.decline')}
            </button>
            <button type="button" className="btn btn--primary" onClick={() => void answer(true)}>
              {t('pk.accept')}
            </button>
          </div>
        </Modal>
      )}
    </>
  );
}

function Waiting({ invite, seconds }: { invite: PkInvite; seconds: number }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  return (
    <div className="pk-finder__waiting" role="status">
      <p>{t('pk.waiting', { name: invite.to.nickname, seconds })}</p>
      <button
        type="button"
        className="btn"
        onClick={() =>
          void api('DELETE', `/api/v1/pk/invites/${invite.id}`).catch((err: unknown) =>
            toast(errorMessage(t, err)),
          )
        }
      >
        {t('pk.withdraw')}
      </button>
    </div>
  );
}

/**
 * A random opponent: the host waits in the queue (30 s), matched by the server by country, then
 * audience; a match starts the countdown in both rooms (and the finder closes with it). Leaving
 * the finder stops the wait.
 */
function RandomMatch({ minutes }: { minutes: number }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [state, setState] = useState<{ until: number; left: number } | null>(null);
  const searching = state !== null;
  const now = useTicker(searching);
  const left = searching ? Math.ceil(Math.min(state.left, state.until - now) / 1000) : 0;
  const over = searching && left <= 0;
  useEffect(
    () => () => {
      void api('DELETE', '/api/v1/pk/queue').catch(() => undefined);
    },
    [],
  );
  const join = async () => {
    try {
      const { left_ms } = await api<{ left_ms: number }>('POST', '/api/v1/pk/queue', { minutes });
      setState({ until: performance.now() + left_ms, left: left_ms });
    } catch (err) {
      toast(errorMessage(t, err));
    }
  };
  const cancel = () => {
    setState(null);
    void api('DELETE', '/api/v1/pk/queue').catch(() => undefined);
  };
  return (
    <div className="pk-finder__random">
      {searching && !over ? (
        <>
          <p role="status">{t('pk.searching', { seconds: left })}</p>
          <button type="button" className="btn" onClick={cancel}>
            {t('common.cancel')}
          </button>
        </>
      ) : (
        <>
          <p className="muted">{over ? t('pk.noMatch') : t('pk.randomHint')}</p>
          <button type="button" className="btn btn--primary" onClick={() => void join()}>
            {t('pk.random')}
          </button>
        </>
      )}
    </div>
  );
}

/** Live hosts who take battles, by name and friends only; the round's length; invite. */
function Finder() {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [q, setQ] = useState('');
  const [friends, setFriends] = useState(false);
  const [minutes, setMinutes] = useState<number>(PK_ROUND_MINUTES.default);
  const [hosts, setHosts] = useState<PkHost[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [accepts, setAccepts] = useState<boolean | null>(null);

  useEffect(() => {
    api<Answer<typeof pkSettingsSchema>>('GET', '/api/v1/pk/settings').then(
      (s) => setAccepts(s.accepts),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    let live = true;
    // Asked once typing pauses.
    const timer = window.setTimeout(() => {
      const query = new URLSearchParams({ friends: friends ? '1' : '0' });
      if (q.trim()) query.set('q', q.trim());
      api<Answer<typeof pkHostsAnswer>>('GET', `/api/v1/pk/hosts?${query}`).then(
        (a) => {
          if (!live) return;
          setHosts(a.list);
          setFailed(false);
        },
        () => live && setFailed(true),
      );
    }, 250);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [q, friends]);

  const invite = async (to: number) => {
    try {
      await api('POST', '/api/v1/pk/invites', { to, minutes });
    } catch (err) {
      toast(errorMessage(t, err));
    }
  };
  const toggleAccepts = async (on: boolean) => {
    setAccepts(on);
    await api('POST', '/api/v1/pk/settings', { accepts: on }).catch((err: unknown) => {
      setAccepts(!on);
      toast(errorMessage(t, err));
    });
  };

  return (
    <div className="pk-finder__body">
      <div className="pk-finder__filters">
        <label className="field">
          <span>{t('pk.search')}</span>
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        </label>
        <label className="field">
          <span>{t('pk.minutes')}</span>
          <select value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
            {Array.from(
              { length: PK_ROUND_MINUTES.max - PK_ROUND_MINUTES.min + 1 },
              (_, i) => i + PK_ROUND_MINUTES.min,
            ).map((n) => (
              <option key={n} value={n}>
                {t('pk.minutesValue', { count: n })}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={friends} onChange={(e) => setFriends(e.target.checked)} />
          <span>{t('pk.friends')}</span>
        </label>
      </div>
      <RandomMatch minutes={minutes} />
      {failed ? (
        <p role="alert">{t('error.network')}</p>
      ) : hosts === null ? (
        <p className="muted" role="status" aria-busy="true">
          {t('common.loading')}
        </p>
      ) : hosts.length === 0 ? (
        <p className="muted">{t('pk.none')}</p>
      ) : (
        <ul className="pk-finder__list">
          {hosts.map((h) => (
            <li key={h.uid} className="pk-finder__host">
              <span className="pk-finder__avatar" aria-hidden="true">
                {h.face ? <img src={h.face} alt="" width={40} height={40} /> : h.nickname.slice(0, 1)}
              </span>
              <span className="pk-finder__name">
                <bdi>{h.nickname}</bdi>
                <span className="muted">
                  {' '}
                  · <bdi>{h.title}</bdi>
                </span>
              </span>
              <button
                type="button"
                className="btn btn--primary"
                aria-label={t('pk.inviteName', { name: h.nickname })}
                onClick={() => void invite(h.uid)}
              >
                {t('pk.invite')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {accepts !== null && (
        <label className="check pk-finder__accepts">
          <input type="checkbox" checked={accepts} onChange={(e) => void toggleAccepts(e.target.checked)} />
          <span>{t('pk.accepts')}</span>
        </label>
      )}
    </div>
  );
}
