import { useState, type SyntheticEvent } from 'react';
import type { NewsEdit, StaffNews as Article, StaffNewsSummary } from '../../common/api/news';
import { LOCALE_NAMES, htmlLang, type Locale } from '../../common/locales';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { Console } from '../staff/Console';
import { DeskList, ItemRow } from '../staff/ItemRow';
import { LanguageChips } from '../staff/LanguageChips';
import { fromLocalInput, toLocalInput } from '../staff/local-time';
import { formatDateTime } from '../wallet/format';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/news: the news desk. Every article, published, scheduled or hidden; one written or
 * edited in every language (Markdown), its address, date, and whether readers see it.
 */
export default function StaffNews() {
  return (
    <Console page="news" needs="content.edit">
      {() => <Desk />}
    </Console>
  );
}

function Desk() {
  const { t, locale } = useI18n();
  const list = useApiData<{ list: StaffNewsSummary[] }>('/api/v1/staff/news');
  /** The article open in the editor ('new' for one being written). */
  const [open, setOpen] = useState<number | 'new' | null>(null);
  if (open !== null)
    return (
      <Editor
        id={open}
        onDone={(saved) => {
          setOpen(null);
          if (saved) list.reload();
        }}
      />
    );
  const status = (n: StaffNewsSummary) =>
    n.state === 'scheduled'
      ? t('console.news.status.scheduled', { when: formatDateTime(n.published_at, locale) })
      : t(`console.news.status.${n.state}`);
  return (
    <DeskList
      title={t('console.nav.news')}
      add={{ label: t('console.news.write'), onClick: () => setOpen('new') }}
      help={t('console.news.help')}
      list={list}
      empty={t('console.news.empty')}
    >
      {(n) => (
        <ItemRow
          key={n.id}
          title={n.title}
          meta={
            <>
              {status(n)} · {formatDateTime(n.published_at, locale)} ·{' '}
              <span dir="ltr">{n.locales.join(' ')}</span>
            </>
          }
          view={n.state === 'published' ? `/${locale}/news/${n.slug}` : null}
          editLabel={t('console.news.editThis', { title: n.title })}
          onEdit={() => setOpen(n.id)}
        />
      )}
    </DeskList>
  );
}

type Text = NonNullable<NewsEdit['translations']['en']>;
const EMPTY: Text = { title: '', summary: '', description: '', body_md: '' };

/** The article open for editing: loads it first (a new one starts empty, dated now). */
function Editor({ id, onDone }: { id: number | 'new'; onDone: (saved: boolean) => void }) {
  const { data, error, reload } = useApiData<Article>(id === 'new' ? null : `/api/v1/staff/news/${id}`);
  if (id !== 'new' && error !== null) return <LoadError error={error} onRetry={reload} />;
  if (id !== 'new' && !data) return <Loading />;
  return <ArticleForm article={id === 'new' ? null : data} onDone={onDone} />;
}

function ArticleForm({ article, onDone }: { article: Article | null; onDone: (saved: boolean) => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [slug, setSlug] = useState(article?.slug ?? '');
  const [when, setWhen] = useState(toLocalInput(article?.published_at ?? new Date().toISOString()));
  const [hidden, setHidden] = useState(article?.hidden ?? false);
  const [texts, setTexts] = useState<Partial<Record<Locale, Text>>>(article?.translations ?? { en: EMPTY });
  const [lang, setLang] = useState<Locale>('en');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const text = texts[lang];
  const setText = (patch: Partial<Text>) => setTexts({ ...texts, [lang]: { ...(text ?? EMPTY), ...patch } });
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!texts.en?.title.trim()) {
      setLang('en');
      setFailure(t('console.news.englishRequired'));
      return;
    }
    setBusy(true);
    setFailure(null);
    const edit: NewsEdit = {
      slug: slug.trim(),
      published_at: fromLocalInput(when),
      hidden,
      translations: texts,
    };
    try {
      if (article) await api('PUT', `/api/v1/staff/news/${article.id}`, edit);
      else await api('POST', '/api/v1/staff/news', edit);
      toast(t('console.news.saved'));
      onDone(true);
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const title = article
    ? t('console.news.editTitle', { title: article.translations.en?.title ?? article.slug })
    : t('console.news.newTitle');
  return (
    <form className="staff-gift__form staff-news" onSubmit={(e) => void submit(e)} aria-label={title}>
      <button type="button" className="btn btn--ghost btn--sm staff-news__back" onClick={() => onDone(false)}>
        {t('console.news.back')}
      </button>
      <h1>{title}</h1>
      <div className="staff-gift__numbers">
        <Field
          label={t('console.news.slug')}
          dir="ltr"
          pattern="[a-z0-9\-]{1,80}"
          maxLength={80}
          required
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
        />
        <Field
          label={t('console.news.date')}
          type="datetime-local"
          required
          value={when}
          onChange={(e) => setWhen(e.target.value)}
        />
        <label className="check">
          <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.target.checked)} />{' '}
          {t('console.news.hidden')}
        </label>
      </div>
      <LanguageChips current={lang} onPick={setLang} written={(l) => texts[l] !== undefined} />
      {text ? (
        <fieldset className="staff-news__text" lang={htmlLang(lang)}>
          <legend>{LOCALE_NAMES[lang]}</legend>
          <Field
            label={t('console.news.title')}
            dir="auto"
            maxLength={200}
            required
            value={text.title}
            onChange={(e) => setText({ title: e.target.value })}
          />
          <Field
            label={t('console.news.summary')}
            dir="auto"
            maxLength={400}
            value={text.summary}
            onChange={(e) => setText({ summary: e.target.value })}
          />
          <Field
            label={t('console.news.description')}
            dir="auto"
            maxLength={300}
            value={text.description}
            onChange={(e) => setText({ description: e.target.value })}
          />
          <div className="field">
            <label htmlFor="staff-news-body">{t('console.news.body')}</label>
            <textarea
              id="staff-news-body"
              dir="auto"
              rows={14}
              maxLength={50_000}
              value={text.body_md}
              onChange={(e) => setText({ body_md: e.target.value })}
            />
          </div>
          {lang !== 'en' && (
            <button
              type="button"
              className="btn btn--ghost btn--sm"
              onClick={() => setTexts(Object.fromEntries(Object.entries(texts).filter(([l]) => l !== lang)))}
            >
              {t('console.news.removeLanguage')}
            </button>
          )}
        </fieldset>
      ) : (
        <button type="button" className="btn btn--ghost" onClick={() => setText({})}>
          {t('console.news.addLanguage', { language: LOCALE_NAMES[lang] })}
        </button>
      )}
      <FormError message={failure} />
      <div className="staff-gift__actions">
        <BusyButton busy={busy} disabled={busy} className="btn btn--primary">
          {t('console.news.save')}
        </BusyButton>
        <button type="button" className="btn btn--ghost" onClick={() => onDone(false)}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
