import { useState } from 'react';
import { STAFF_ROLES, type StaffRole } from '../../common/staff';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError, useSubmit } from '../ui/form';
import { Console } from '../staff/Console';
import { staffApi, type StaffMembers as Members } from '../staff/staff-api';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/** /staff/members: admins invite staff by e-mail, change their roles, reset a lost authenticator, remove them. */
export default function StaffMembers() {
  return (
    <Console page="members" needs="staff.manage">
      {(me) => <MembersPage self={me.uid} />}
    </Console>
  );
}

function MembersPage({ self }: { self: number }) {
  const { t, locale } = useI18n();
  const { confirm, toast } = useFeedback();
  const { data, error, loading, reload } = useApiData<Members>('/api/v1/staff/members');
  const act = async (call: () => Promise<unknown>, done?: string) => {
    try {
      await call();
      if (done) toast(done);
    } catch (err) {
      toast(errorMessage(t, err));
    }
    reload();
  };
  const date = (iso: string) => new Date(iso).toLocaleDateString(locale, { dateStyle: 'medium' });
  return (
    <>
      <header className="page-head">
        <h1>{t('console.nav.members')}</h1>
      </header>
      <InviteForm onInvited={reload} />
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <>
          <div className="staff-table-wrap">
            <table className="staff-table">
              <thead>
                <tr>
                  <th scope="col">{t('console.members.person')}</th>
                  <th scope="col">{t('console.members.role')}</th>
                  <th scope="col">{t('console.members.mfa')}</th>
                  <th scope="col">{t('console.members.since')}</th>
                  <th scope="col">
                    <span className="sr-only">{t('console.members.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.list.map((m) => (
                  <tr key={m.uid}>
                    <td>
                      <bdi>{m.nickname}</bdi>
                      {m.uid === self && <span className="muted"> ({t('audio.you')})</span>}
                      <br />
                      <span className="muted small" dir="ltr">
                        {m.email ?? m.short_id}
                      </span>
                      {m.configured && (
                        <span className="mark mark--staff">{t('console.members.configured')}</span>
                      )}
                    </td>
                    <td>
                      <select
                        aria-label={t('console.members.roleOf', { name: m.nickname })}
                        value={m.role}
                        onChange={(e) => void act(() => staffApi.setRole(m.uid, e.target.value as StaffRole))}
                      >
                        {STAFF_ROLES.map((r) => (
                          <option key={r} value={r}>
                            {t(`console.role.${r}`)}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>{m.mfa ? t('console.members.mfaOn') : t('console.members.mfaOff')}</td>
                    <td>{date(m.since)}</td>
                    <td className="staff-table__actions">
                      {m.mfa && m.uid !== self && (
                        <button
                          type="button"
                          className="btn btn--ghost btn--sm"
                          onClick={() =>
                            void (async () => {
                              if (await confirm(t('console.members.confirmReset', { name: m.nickname })))
                                await act(() => staffApi.resetMfa(m.uid));
                            })()
                          }
                        >
                          {t('console.members.resetMfa')}
                        </button>
                      )}
                      {m.uid !== self && (
                        <button
                          type="button"
                          className="btn btn--ghost btn--sm"
                          onClick={() =>
                            void (async () => {
                              if (await confirm(t('console.members.confirmRemove', { name: m.nickname })))
                                await act(() => staffApi.remove(m.uid));
                            })()
                          }
                        >
                          {t('console.members.remove')}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <section aria-labelledby="staff-invitations">
            <h2 id="staff-invitations">{t('console.members.invitations')}</h2>
            {data.invitations.length === 0 ? (
              <p className="muted">{t('console.members.noInvitations')}</p>
            ) : (
              <ul className="staff-invitations">
                {data.invitations.map((i) => (
                  <li key={i.email}>
                    <span dir="ltr">{i.email}</span> · {t(`console.role.${i.role}`)} · {date(i.since)}{' '}
                    <button
                      type="button"
                      className="btn btn--ghost btn--sm"
                      onClick={() => void act(() => staffApi.uninvite(i.email))}
                    >
                      {t('console.members.withdraw')}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<StaffRole>('moderator');
  const { busy, error, onSubmit } = useSubmit();
  const submit = onSubmit(async () => {
    const { uid } = await staffApi.invite(email.trim(), role);
    toast(
      uid === null
        ? t('console.members.invited', { email: email.trim(), role: t(`console.role.${role}`) })
        : t('console.members.added', { email: email.trim(), role: t(`console.role.${role}`) }),
    );
    setEmail('');
    onInvited();
  });
  return (
    <form className="staff-invite" onSubmit={submit} aria-labelledby="staff-invite-title">
      <h2 id="staff-invite-title">{t('console.members.invite')}</h2>
      <p className="muted small">{t('console.members.inviteHelp')}</p>
      <div className="staff-invite__row">
        <Field
          label={t('console.members.email')}
          type="email"
          autoComplete="off"
          dir="ltr"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        <div className="field">
          <label htmlFor="staff-invite-role">{t('console.members.role')}</label>
          <select id="staff-invite-role" value={role} onChange={(e) => setRole(e.target.value as StaffRole)}>
            {STAFF_ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`console.role.${r}`)}
              </option>
            ))}
          </select>
        </div>
        <BusyButton busy={busy} disabled={busy || !email.includes('@')} className="btn btn--primary">
          {t('console.members.inviteButton')}
        </BusyButton>
      </div>
      <FormError message={error} />
    </form>
  );
}
