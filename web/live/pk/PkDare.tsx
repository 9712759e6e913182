import { useEffect, useState } from 'react';
import type { PkBattle, PkIdea } from '../../../common/api/pk';
import { PK_DARE_MAX } from '../../../common/pk';
import { api } from '../../lib/api';
import { errorMessage } from '../../lib/errors';
import { useAuth } from '../../lib/session';
import { useI18n } from '../../i18n/i18n';
import { FormError, useSubmit } from '../../ui/form';

/** How often the winning host's list of suggestions is read during the dare (it lasts 60 s). */
const IDEAS_EVERY_MS = 2000;

/**
 * The dare, during the dare phase (spec §4 "punish"): the winning room suggests, the winning host
 * picks a suggestion or types their own, and everyone then reads it with who suggested it. The
 * losing room waits for it.
 */
export function PkDare({
  battle,
  mine,
  canDare,
}: {
  battle: PkBattle;
  /** This room's side. */
  mine: 'a' | 'b';
  /** The winning host (the studio): names the dare. */
  canDare: boolean;
}) {
  const { t } = useI18n();
  const { user } = useAuth();
  if (battle.winner !== 'a' && battle.winner !== 'b') return null;
  const winner = battle[battle.winner].host.nickname;
  const loser = battle[battle.winner === 'a' ? 'b' : 'a'].host.nickname;
  if (battle.dare) return <DareText battle={battle} loser={loser} />;
  if (canDare) return <NameDare battle={battle} loser={loser} />;
  // The hosts name the dare (the winner, in the studio) or do it: they do not suggest one.
  const host = user !== null && (user.uid === battle.a.host.uid || user.uid === battle.b.host.uid);
  if (battle.winner === mine && !host) return <SuggestDare battle={battle} loser={loser} winner={winner} />;
  return <p className="muted">{t('pk.dareWaiting', { name: winner })}</p>;
}

/** The dare set, and who in the winning room suggested it. */
export function DareText({ battle, loser }: { battle: PkBattle; loser: string }) {
  const { t } = useI18n();
  return (
    <p className="pk-result__dare-text">
      {t('pk.dare', { name: loser })} <bdi>{battle.dare}</bdi>
      {battle.dare_by && (
        <span className="pk-result__dare-by"> · {t('pk.dareBy', { name: battle.dare_by.nickname })}</span>
      )}
    </p>
  );
}

/** A dare typed into the battle's little form: one line, the dare's length at most. */
function DareForm({
  label,
  send,
  action,
}: {
  label: string;
  /** False when it was not sent (the reader must sign in first): the text stays. */
  send: (text: string) => Promise<boolean>;
  action: string;
}) {
  const [text, setText] = useState('');
  const { busy, error, onSubmit } = useSubmit();
  return (
    <>
      <form
        className="pk-result__dare-form"
        onSubmit={onSubmit(async () => {
          if (!text.trim()) return;
          if (await send(text.trim())) setText('');
        })}
      >
        <label>
          <span className="sr-only">{label}</span>
          <input
            type="text"
            value={text}
            maxLength={PK_DARE_MAX}
            placeholder={label}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <button type="submit" className="btn btn--primary" disabled={busy || !text.trim()}>
          {action}
        </button>
      </form>
      <FormError message={error} />
    </>
  );
}

/** The winning host: their room's suggestions, newest first, each one tap away; or their own words. */
function NameDare({ battle, loser }: { battle: PkBattle; loser: string }) {
  const { t } = useI18n();
  const [ideas, setIdeas] = useState<PkIdea[] | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const { busy, error, run } = useSubmit();
  useEffect(() => {
    let live = true;
    const read = () =>
      api<{ list: PkIdea[] }>('GET', `/api/v1/pk/${battle.id}/ideas`)
        .then((r) => {
          if (!live) return;
          setIdeas(r.list);
          setReadError(null);
        })
        .catch((err: unknown) => live && setReadError(errorMessage(t, err)));
    void read();
    const timer = window.setInterval(() => void read(), IDEAS_EVERY_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [battle.id, t]);
  const choose = (from: number) =>
    void run(async () => {
      await api('POST', `/api/v1/pk/${battle.id}/dare`, { from });
    });
  return (
    <div className="pk-result__dare">
      <h3 className="pk-result__ideas-title">{t('pk.ideasTitle')}</h3>
      {ideas === null && !readError && (
        <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
      )}
      {readError && <p className="form-error">{readError}</p>}
      {ideas?.length === 0 && <p className="muted">{t('pk.ideasNone')}</p>}
      {ideas && ideas.length > 0 && (
        <ul className="pk-result__ideas">
          {ideas.map((idea) => (
            <li key={idea.uid}>
              <span className="pk-result__idea">
                <bdi>{idea.text}</bdi>{' '}
                <span className="muted">
                  · <bdi>{idea.nickname}</bdi>
                </span>
              </span>
              <button
                type="button"
                className="btn btn--light btn--sm"
                disabled={busy}
                onClick={() => choose(idea.uid)}
                aria-label={t('pk.chooseIdea', { text: idea.text })}
              >
                {t('pk.choose')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError message={error} />
      <DareForm
        label={t('pk.dareLabel', { name: loser })}
        action={t('pk.dareSend')}
        send={async (text) => {
          await api('POST', `/api/v1/pk/${battle.id}/dare`, { text });
          return true;
        }}
      />
    </div>
  );
}

/** Someone in the winning room: suggests the dare (a new one replaces theirs). */
function SuggestDare({ battle, loser, winner }: { battle: PkBattle; loser: string; winner: string }) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const [sent, setSent] = useState<string | null>(null);
  return (
    <div className="pk-result__dare">
      <p className="muted">{t('pk.dareWaiting', { name: winner })}</p>
      <DareForm
        label={t('pk.suggestLabel', { name: loser })}
        action={t('pk.suggest')}
        send={async (text) => {
          if (!user) {
            requireLogin(t('error.sign_in_first'));
            return false;
          }
          await api('POST', `/api/v1/pk/${battle.id}/ideas`, { text });
          setSent(text);
          return true;
        }}
      />
      {sent && (
        <p className="pk-result__suggested" role="status">
          {t('pk.suggested', { name: winner })} <bdi>{sent}</bdi>
        </p>
      )}
    </div>
  );
}
