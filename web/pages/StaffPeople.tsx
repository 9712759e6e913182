import { useState } from 'react';
import type { PersonDetail, SafetyAction, StaffPerson } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';
import { ActDialog } from '../staff/ActDialog';
import { NoteDialog } from '../staff/NoteDialog';
import { SearchForm, useSearch } from '../staff/Search';
import { Console } from '../staff/Console';
import { formatAmount, formatDateTime } from '../wallet/format';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/people: someone found by short id, e-mail, phone or nickname; their profile, sessions,
 * lives, reports, sanctions, wallet and payee; sessions revoked, avatar or nickname reset, warn,
 * suspend or ban, each with a note.
 */
export default function StaffPeople() {
  return (
    <Console page="people" needs="safety.act">
      {() => <People />}
    </Console>
  );
}

function People() {
  const { t } = useI18n();
  const [open, setOpen] = useState<number | null>(null);
  const search = useSearch<{ list: StaffPerson[] }>('/api/v1/staff/people');
  const { data, error, loading, reload } = search;
  return (
    <>
      <header className="page-head">
        <h1>{t('console.nav.people')}</h1>
      </header>
      <SearchForm label={t('console.people.find')} search={search} onSearch={() => setOpen(null)} />
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('console.curation.none')}</p>}
      {data && data.list.length > 0 && open === null && (
        <ul className="staff-people">
          {data.list.map((p) => (
            <li key={p.uid} className="staff-person">
              <span className="staff-person__who">
                <Avatar face={p.face} name={p.nickname} size={32} />
                <span>
                  <bdi>{p.nickname}</bdi>{' '}
                  <span className="muted small" dir="ltr">
                    {p.short_id} · {p.email ?? p.phone ?? ''}
                  </span>
                </span>
              </span>
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => setOpen(p.uid)}>
                {t('console.people.open')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {open !== null && <Person uid={open} onBack={() => setOpen(null)} />}
    </>
  );
}

type Act =
  | { kind: 'safety'; action: SafetyAction }
  | { kind: 'revoke' }
  | { kind: 'reset'; what: 'avatar' | 'nickname' }
  | { kind: 'lift'; sanction: PersonDetail['sanctions'][number] };

function Person({ uid, onBack }: { uid: number; onBack: () => void }) {
  const { t, locale } = useI18n();
  const { data, error, reload } = useApiData<PersonDetail>(`/api/v1/staff/people/${uid}`);
  const [act, setAct] = useState<Act | null>(null);
  if (error) return <LoadError error={error} onRetry={reload} />;
  if (!data) return <Loading />;
  const p = data.person;
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : '—');
  const done = () => {
    setAct(null);
    reload();
  };
  return (
    <article className="staff-section staff-person-detail" aria-label={p.nickname}>
      <button type="button" className="btn btn--ghost btn--sm" onClick={onBack}>
        {t('console.people.back')}
      </button>
      <header className="staff-person-detail__head">
        <Avatar face={p.face} name={p.nickname} size={64} />
        <div>
          <h2>
            <bdi>{p.nickname}</bdi>
          </h2>
          <p className="muted small" dir="ltr">
            {p.short_id} · {p.email ?? '—'} · {p.phone ?? '—'} · {p.country}
          </p>
          <p className="muted small">{t('console.people.since', { when: when(p.created_at) })}</p>
        </div>
      </header>
      <div className="staff-person-detail__actions">
        {(['warn', 'suspend', 'ban'] as const).map((a) => (
          <button
            key={a}
            type="button"
            className={a === 'ban' ? 'btn btn--danger btn--sm' : 'btn btn--ghost btn--sm'}
            onClick={() => setAct({ kind: 'safety', action: a })}
          >
            {t(`console.reports.action.${a}`)}
          </button>
        ))}
        <button type="button" className="btn btn--ghost btn--sm" onClick={() => setAct({ kind: 'revoke' })}>
          {t('console.people.revoke')}
        </button>
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          onClick={() => setAct({ kind: 'reset', what: 'avatar' })}
        >
          {t('console.people.resetAvatar')}
        </button>
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          onClick={() => setAct({ kind: 'reset', what: 'nickname' })}
        >
          {t('console.people.resetNickname')}
        </button>
      </div>
      <dl className="staff-person-detail__facts">
        <div>
          <dt>{t('console.people.wallet')}</dt>
          <dd>
            {t('wallet.coins', {
              count: data.wallet.coin,
              formatted: formatAmount(data.wallet.coin, locale),
            })}{' '}
            ·{' '}
            {t('wallet.diamonds', {
              count: data.wallet.diamond,
              formatted: formatAmount(data.wallet.diamond, locale),
            })}
          </dd>
        </div>
        <div>
          <dt>{t('console.people.payee')}</dt>
          <dd dir="auto">
            {data.payee
              ? `${data.payee.account} (${t(`cashout.payee.status.${data.payee.status as 'pending' | 'approved' | 'rejected'}`)})`
              : '—'}
          </dd>
        </div>
        <div>
          <dt>{t('console.people.reports')}</dt>
          <dd>
            {t('console.people.reportCounts', {
              open: data.reports.open,
              received: data.reports.received,
              made: data.reports.made,
            })}
          </dd>
        </div>
      </dl>
      <section aria-labelledby="person-sessions">
        <h3 id="person-sessions">{t('console.people.sessions', { count: data.sessions.length })}</h3>
        <ul className="staff-person-detail__list">
          {data.sessions.map((s) => (
            <li key={s.id}>
              {[s.browser, s.os].filter(Boolean).join(' · ')}
              {(s.browser || s.os) && ' · '}
              {s.ip && (
                <>
                  <span dir="ltr">{s.ip}</span> ·{' '}
                </>
              )}
              <span dir="ltr" className="muted">
                {s.device_id}
              </span>{' '}
              · {when(s.created_at)}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="person-lives">
        <h3 id="person-lives">{t('console.people.lives')}</h3>
        {data.lives.length === 0 ? (
          <p className="muted">{t('console.people.noLives')}</p>
        ) : (
          <ul className="staff-person-detail__list">
            {data.lives.map((l) => (
              <li key={l.vid}>
                <a href={`/${locale}/v/${l.vid}`} target="_blank" rel="noopener">
                  <bdi>{l.title || l.vid}</bdi>
                </a>{' '}
                · {when(l.started_at)} · {l.status}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="person-history">
        <h3 id="person-history">{t('console.people.history')}</h3>
        {data.sanctions.length === 0 && data.reports.latest.length === 0 ? (
          <p className="muted">{t('console.people.clean')}</p>
        ) : (
          <ul className="staff-person-detail__list">
            {data.sanctions.map((s) => (
              <li key={`s${s.id}`} className={s.lifted_at ? 'staff-person-detail__lifted' : undefined}>
                <strong>{t(`console.people.sanction.${s.kind}`)}</strong> · {when(s.at)}
                {s.kind === 'suspend' && s.until && (
                  <> · {t('console.people.until', { when: when(s.until) })}</>
                )}{' '}
                · <bdi>{s.note}</bdi>
                {s.lifted_at && (
                  <span className="muted small">
                    {' '}
                    · {t('console.people.lifted', { when: when(s.lifted_at) })}: <bdi>{s.lift_note}</bdi>
                  </span>
                )}
                {s.in_force && (
                  <button
                    type="button"
                    className="btn btn--ghost btn--sm"
                    onClick={() => setAct({ kind: 'lift', sanction: s })}
                  >
                    {t(`console.people.lift.${s.kind === 'ban' ? 'ban' : 'suspend'}`)}
                  </button>
                )}
              </li>
            ))}
            {data.reports.latest.map((r, i) => (
              <li key={`r${i}`}>
                {t(`report.categories.${r.category}`)} · {when(r.at)} {r.reason && <bdi>· {r.reason}</bdi>}
              </li>
            ))}
          </ul>
        )}
      </section>
      {act?.kind === 'safety' && (
        <ActDialog target={p} vid={null} action={act.action} onClose={() => setAct(null)} onDone={done} />
      )}
      {act?.kind === 'lift' && (
        <NoteDialog
          title={t(`console.people.lift.${act.sanction.kind === 'ban' ? 'ban' : 'suspend'}`)}
          explain={t(`console.people.liftExplain.${act.sanction.kind === 'ban' ? 'ban' : 'suspend'}`, {
            name: p.nickname,
          })}
          path={`/api/v1/staff/people/${uid}/sanctions/${act.sanction.id}/lift`}
          onClose={() => setAct(null)}
          onDone={done}
        />
      )}
      {(act?.kind === 'revoke' || act?.kind === 'reset') && (
        <NoteDialog
          title={
            act.kind === 'revoke'
              ? t('console.people.revoke')
              : t(act.what === 'avatar' ? 'console.people.resetAvatar' : 'console.people.resetNickname')
          }
          path={`/api/v1/staff/people/${uid}/${act.kind === 'revoke' ? 'sessions/revoke' : 'reset'}`}
          body={act.kind === 'reset' ? { what: act.what } : {}}
          onClose={() => setAct(null)}
          onDone={done}
        />
      )}
    </article>
  );
}
