import type { Answer } from '../../common/api/envelope';
import type { ObsStatus, streamKeyAnswer } from '../../common/api/live';
import { LIVE_CATEGORIES, type LiveCategory } from '../../common/discovery';
import { useCallback, useEffect, useState } from 'react';
import { useConfig } from '../lib/config';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { SignInPrompt } from '../ui/SignInPrompt';
import { BusyButton, FormError } from '../ui/form';
import { Link } from '../ui/Link';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';

const POLL_MS = 5000;

function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  return (
    <div className="obs__field">
      <label className="field">
        <span>{label}</span>
        <input readOnly value={value} dir="ltr" onFocus={(e) => e.target.select()} />
      </label>
      <button
        type="button"
        className="btn btn--ghost"
        onClick={() => {
          navigator.clipboard
            .writeText(value)
            .then(() => toast(t('obs.copied')))
            .catch(() => toast(t('common.copyFailed')));
        }}
      >
        {t('obs.copy')}
      </button>
    </div>
  );
}

/** /obs: the signed-in broadcaster's WHIP URL and stream key, and how to set up OBS 30+. */
export default function Obs() {
  const { t } = useI18n();
  const { siteName } = useConfig();
  const { user } = useAuth();
  const { confirm, toast } = useFeedback();
  const [status, setStatus] = useState<ObsStatus | null>(null);
  const [key, setKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    api<ObsStatus>('GET', '/api/v1/live/obs')
      .then(setStatus)
      .catch((err: unknown) => setError(errorMessage(t, err)));
  }, [t]);

  useEffect(() => {
    if (!user) return;
    load();
    const timer = window.setInterval(load, POLL_MS);
    return () => window.clearInterval(timer);
  }, [user, load]);

  /** What broadcasts from OBS are about: saved as it is chosen. */
  const choose = (category: LiveCategory) => {
    setError(null);
    api('POST', '/api/v1/live/obs/category', { category }).then(
      () => {
        setStatus((s) => s && { ...s, category });
        toast(t('obs.categorySaved'));
      },
      (err: unknown) => setError(errorMessage(t, err)),
    );
  };

  const regenerate = async () => {
    if (status?.has_key && !(await confirm(t('obs.regenerateConfirm')))) return;
    setBusy(true);
    setError(null);
    try {
      setKey((await api<Answer<typeof streamKeyAnswer>>('POST', '/api/v1/live/obs/key', {})).stream_key);
      load();
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  if (!user) return <SignInPrompt title={t('placeholder.obs.title')} className="obs obs--center" />;

  return (
    <div className="obs">
      <h1>{t('placeholder.obs.title')}</h1>
      <p className="muted">{t('obs.intro', { site: siteName })}</p>
      <FormError message={error} />
      {status && !status.allowed && (
        <div className="obs__section">
          <p>{t('obs.notAllowed')}</p>
          <Link to="/broadcast" className="btn btn--primary">
            {t('obs.useStudio')}
          </Link>
        </div>
      )}
      {status?.allowed && (
        <>
          <section className="obs__section" aria-live="polite">
            {status.active?.status === 'live' ? (
              <p className="obs__state obs__state--live">
                <span className="live-badge">{t('live.badge')}</span> {t('obs.live')}{' '}
                <Link to={`/v/${status.active.vid}`}>{t('obs.watch')}</Link>
              </p>
            ) : (
              status.has_key && <p className="obs__state muted">{t('obs.waiting')}</p>
            )}
            <CopyField label={t('obs.server')} value={status.whip_url} />
            {key ? (
              <>
                <CopyField label={t('obs.key')} value={key} />
                <p className="notice" role="status">
                  {t('obs.keyShownOnce')}
                </p>
              </>
            ) : (
              <p className="muted">{status.has_key ? t('obs.keyHidden') : t('obs.noKey')}</p>
            )}
            {status.has_key && (
              <label className="field obs__category">
                <span>{t('studio.category')}</span>
                <select value={status.category} onChange={(e) => choose(e.target.value as LiveCategory)}>
                  {LIVE_CATEGORIES.map((c) => (
                    <option key={c} value={c}>
                      {t(`category.${c}`)}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <BusyButton busy={busy} disabled={busy} type="button" onClick={() => void regenerate()}>
              {status.has_key ? t('obs.regenerate') : t('obs.generate')}
            </BusyButton>
          </section>
          <section className="obs__section" aria-labelledby="obs-steps">
            <h2 id="obs-steps">{t('obs.stepsTitle')}</h2>
            <ol className="obs__steps">
              <li>{t('obs.step1')}</li>
              <li>{t('obs.step2')}</li>
              <li>{t('obs.step3')}</li>
              <li>{t('obs.step4')}</li>
              <li>{t('obs.step5', { site: siteName })}</li>
            </ol>
          </section>
        </>
      )}
    </div>
  );
}
