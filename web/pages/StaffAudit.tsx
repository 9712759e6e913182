import { useState, type SyntheticEvent } from 'react';
import type { AuditEntry } from '../../common/api/staff';
import { useI18n } from '../i18n/i18n';
import { Field } from '../ui/fields';
import { Console } from '../staff/Console';
import { PagesMore } from '../staff/PagesMore';
import { usePages } from '../staff/use-pages';
import { LoadError, Loading } from '../wallet/ui';

/** /staff/audit: every staff action, newest first; searched, filtered by action, exported as CSV. */
export default function StaffAudit() {
  return (
    <Console page="audit" needs="audit.read">
      {() => <AuditPage />}
    </Console>
  );
}

function query(q: string, action: string, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams(extra);
  if (q) p.set('q', q);
  if (action) p.set('action', action);
  const s = p.toString();
  return s ? `?${s}` : '';
}

function AuditPage() {
  const { t, locale } = useI18n();
  const [q, setQ] = useState('');
  const [action, setAction] = useState('');
  const [asked, setAsked] = useState({ q: '', action: '' });
  const { data, error, loading, reload, items, next, loadMore, moreError } = usePages<AuditEntry>(
    `/api/v1/staff/audit${query(asked.q, asked.action)}`,
    (before) => `/api/v1/staff/audit${query(asked.q, asked.action, { before: String(before) })}`,
  );
  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    setAsked({ q: q.trim(), action: action.trim() });
  };
  const rows = items;
  const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));
  return (
    <>
      <header className="page-head staff-head">
        <h1>{t('console.nav.audit')}</h1>
        <a
          className="btn btn--ghost btn--sm"
          href={`/api/v1/staff/audit.csv${query(asked.q, asked.action)}`}
          download
        >
          {t('console.audit.export')}
        </a>
      </header>
      <form className="staff-filters" role="search" onSubmit={submit}>
        <Field
          label={t('console.audit.search')}
          type="search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder={t('console.audit.searchHelp')}
        />
        <Field
          label={t('console.audit.action')}
          value={action}
          onChange={(e) => setAction(e.target.value)}
          placeholder="staff.role"
          dir="ltr"
        />
        <button type="submit" className="btn btn--primary">
          {t('console.audit.find')}
        </button>
      </form>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data &&
        (rows.length === 0 ? (
          <p className="muted">{t('console.audit.empty')}</p>
        ) : (
          <div className="staff-table-wrap">
            <table className="staff-table">
              <thead>
                <tr>
                  <th scope="col">{t('console.audit.when')}</th>
                  <th scope="col">{t('console.audit.who')}</th>
                  <th scope="col">{t('console.audit.what')}</th>
                  <th scope="col">{t('console.audit.target')}</th>
                  <th scope="col">{t('console.audit.change')}</th>
                  <th scope="col">{t('console.audit.note')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <time dateTime={e.at}>
                        {new Date(e.at).toLocaleString(locale, { dateStyle: 'short', timeStyle: 'medium' })}
                      </time>
                    </td>
                    <td>
                      <bdi>{e.actor.name}</bdi>
                      <br />
                      <span className="muted small">{t(`console.role.${e.actor.role}`)}</span>
                    </td>
                    <td>
                      <code dir="ltr">{e.action}</code>
                    </td>
                    <td>
                      <code dir="ltr">{e.target ?? ''}</code>
                    </td>
                    <td className="staff-table__change" dir="ltr">
                      {json(e.before) && <del>{json(e.before)}</del>}{' '}
                      {json(e.after) && <ins>{json(e.after)}</ins>}
                    </td>
                    <td>
                      <bdi>{e.note ?? ''}</bdi>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <PagesMore next={next} moreError={moreError} loadMore={loadMore} />
    </>
  );
}
