import { useState, type SyntheticEvent } from 'react';
import type { HostMarks } from '../../common/api/explore';
import { LOCALE_NAMES, LOCALES, htmlLang, type Locale } from '../../common/locales';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { Console } from '../staff/Console';
import { SearchForm, useSearch } from '../staff/Search';
import { contentApi, type HostLookup, type ObsPolicy, type WordList } from '../staff/content-api';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/** /staff/content: sensitive words per language, explore's curation marks, and who may use OBS. */
export default function StaffContent() {
  const { t } = useI18n();
  return (
    <Console page="content" needs="content.edit">
      {() => (
        <>
          <header className="page-head">
            <h1>{t('console.nav.content')}</h1>
          </header>
          <Words />
          <Curation />
          <Obs />
        </>
      )}
    </Console>
  );
}

/** A language's sensitive words, one per line; saved whole, in force on every node at once. */
function Words() {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const { data, error, loading, reload } = useApiData<{ list: WordList[] }>('/api/v1/staff/words');
  const [lang, setLang] = useState<Locale>(locale);
  /** The text being edited, per language (absent: as saved). */
  const [drafts, setDrafts] = useState<Partial<Record<Locale, string>>>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const list = data?.list.find((l) => l.locale === lang);
  const text = drafts[lang] ?? list?.words.join('\n') ?? '';
  const save = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const words = text
        .split('\n')
        .map((w) => w.trim())
        .filter(Boolean);
      const saved = await contentApi.saveWords(lang, words);
      setDrafts({ ...drafts, [lang]: undefined });
      toast(t('console.words.saved', { count: saved.words.length, language: LOCALE_NAMES[lang] }));
      reload();
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="staff-section" aria-labelledby="staff-words">
      <h2 id="staff-words">{t('console.words.title')}</h2>
      <p className="muted small">{t('console.words.help')}</p>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <form onSubmit={(e) => void save(e)} className="staff-words">
          <div className="field">
            <label htmlFor="staff-words-lang">{t('console.words.language')}</label>
            <select id="staff-words-lang" value={lang} onChange={(e) => setLang(e.target.value as Locale)}>
              {LOCALES.map((l) => (
                <option key={l} value={l}>
                  {LOCALE_NAMES[l]}
                </option>
              ))}
            </select>
          </div>
          <p className="muted small">
            {list?.edited
              ? t('console.words.edited', {
                  who: list.edited.by ?? '—',
                  when: new Date(list.edited.at).toLocaleString(locale, {
                    dateStyle: 'medium',
                    timeStyle: 'short',
                  }),
                })
              : t('console.words.shipped')}
          </p>
          <div className="field">
            <label htmlFor="staff-words-text">
              {t('console.words.list', { language: LOCALE_NAMES[lang] })}
            </label>
            <textarea
              id="staff-words-text"
              lang={htmlLang(lang)}
              dir="auto"
              rows={12}
              value={text}
              onChange={(e) => setDrafts({ ...drafts, [lang]: e.target.value })}
            />
          </div>
          <FormError message={failure} />
          <div>
            <BusyButton
              busy={busy}
              disabled={busy || drafts[lang] === undefined}
              className="btn btn--primary"
            >
              {t('console.words.save')}
            </BusyButton>
          </div>
        </form>
      )}
    </section>
  );
}

const MARKS: (keyof HostMarks)[] = ['featured', 'official', 'star', 'fashion'];

/** Explore's marks on hosts: find someone by short id or nickname, then mark them. */
function Curation() {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const search = useSearch<HostLookup>('/api/v1/staff/hosts');
  const { data, error, loading, reload } = search;
  const toggle = async (person: HostLookup['list'][number], mark: keyof HostMarks) => {
    try {
      await contentApi.setMarks(person.uid, { ...person.marks, [mark]: !person.marks[mark] });
      reload();
    } catch (err) {
      toast(errorMessage(t, err));
    }
  };
  return (
    <section className="staff-section" aria-labelledby="staff-curation">
      <h2 id="staff-curation">{t('console.curation.title')}</h2>
      <p className="muted small">{t('console.curation.help')}</p>
      <SearchForm label={t('console.curation.find')} search={search} />
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('console.curation.none')}</p>}
      {data && data.list.length > 0 && (
        <ul className="staff-people">
          {data.list.map((p) => (
            <li key={p.uid} className="staff-person">
              <span>
                <bdi>{p.nickname}</bdi>{' '}
                <span className="muted small" dir="ltr">
                  {p.short_id}
                </span>
              </span>
              <span
                className="staff-person__marks"
                role="group"
                aria-label={t('console.curation.marksOf', { name: p.nickname })}
              >
                {MARKS.map((m) => (
                  <button
                    key={m}
                    type="button"
                    className="staff-chip"
                    aria-pressed={p.marks[m]}
                    onClick={() => void toggle(p, m)}
                  >
                    {t(`console.curation.mark.${m}`)}
                  </button>
                ))}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Who may broadcast from OBS: everyone, or only the people listed. */
function Obs() {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const { data, error, loading, reload } = useApiData<ObsPolicy>('/api/v1/staff/obs');
  const [shortId, setShortId] = useState('');
  const [busy, setBusy] = useState(false);
  const act = async (call: () => Promise<ObsPolicy>) => {
    setBusy(true);
    try {
      await call();
      reload();
      return true;
    } catch (err) {
      toast(errorMessage(t, err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="staff-section" aria-labelledby="staff-obs">
      <h2 id="staff-obs">{t('console.obs.title')}</h2>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <>
          <fieldset className="staff-obs__mode" disabled={busy}>
            <legend className="sr-only">{t('console.obs.title')}</legend>
            {(['all', 'list'] as const).map((mode) => (
              <label key={mode} className="check">
                <input
                  type="radio"
                  name="obs-mode"
                  checked={data.mode === mode}
                  onChange={() => void act(() => contentApi.obsMode(mode))}
                />{' '}
                {t(`console.obs.mode.${mode}`)}
              </label>
            ))}
          </fieldset>
          {data.source === 'config' && <p className="muted small">{t('console.obs.fromConfig')}</p>}
          {data.mode === 'list' && (
            <>
              <form
                className="staff-search"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(() => contentApi.obsAdd(shortId.trim())).then((ok) => ok && setShortId(''));
                }}
              >
                <Field
                  label={t('console.obs.shortId')}
                  dir="ltr"
                  inputMode="numeric"
                  value={shortId}
                  onChange={(e) => setShortId(e.target.value)}
                />
                <button type="submit" className="btn" disabled={busy || !shortId.trim()}>
                  {t('console.obs.add')}
                </button>
              </form>
              {data.list.length === 0 ? (
                <p className="muted">{t('console.obs.nobody')}</p>
              ) : (
                <ul className="staff-people">
                  {data.list.map((p) => (
                    <li key={p.uid} className="staff-person">
                      <span>
                        <bdi>{p.nickname}</bdi>{' '}
                        <span className="muted small" dir="ltr">
                          {p.short_id}
                        </span>
                      </span>
                      <button
                        type="button"
                        className="btn btn--ghost btn--sm"
                        disabled={busy}
                        onClick={() => void act(() => contentApi.obsRemove(p.uid))}
                      >
                        {t('console.obs.remove')}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
