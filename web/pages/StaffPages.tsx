import { useState, type SyntheticEvent } from 'react';
import type { PageEditBody, PageText, StaffPage, StaffPages as PageList } from '../../common/api/content';
import { LOCALE_NAMES, htmlLang, type Locale } from '../../common/locales';
import type { StaticPageSlug } from '../../common/pages';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { Console } from '../staff/Console';
import { DeskList, ItemRow } from '../staff/ItemRow';
import { LanguageChips } from '../staff/LanguageChips';
import { formatDateTime } from '../wallet/format';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/pages: the site's static pages (terms, safety, help…); a language's text edited here is
 * shown instead of the repository's until staff take it back.
 */
export default function StaffPages() {
  return (
    <Console page="pages" needs="content.edit">
      {() => <Pages />}
    </Console>
  );
}

function Pages() {
  const { t, locale } = useI18n();
  const list = useApiData<PageList>(`/api/v1/staff/pages?locale=${locale}`);
  const [open, setOpen] = useState<StaticPageSlug | null>(null);
  if (open)
    return (
      <Editor
        slug={open}
        onBack={() => {
          setOpen(null);
          list.reload();
        }}
      />
    );
  return (
    <DeskList title={t('console.nav.pages')} help={t('console.pages.help')} list={list}>
      {(p) => (
        <ItemRow
          key={p.slug}
          title={p.title}
          meta={
            <>
              <bdi dir="ltr">/{p.slug}</bdi>
              {p.edited.length > 0 && <> · {t('console.pages.edited', { languages: p.edited.join(' ') })}</>}
            </>
          }
          view={`/${locale}/${p.slug}`}
          editLabel={t('console.news.editThis', { title: p.title })}
          onEdit={() => setOpen(p.slug)}
        />
      )}
    </DeskList>
  );
}

function Editor({ slug, onBack }: { slug: StaticPageSlug; onBack: () => void }) {
  const { data, error, reload, setData } = useApiData<StaffPage>(`/api/v1/staff/pages/${slug}`);
  const [lang, setLang] = useState<Locale>('en');
  if (error !== null) return <LoadError error={error} onRetry={reload} />;
  if (!data) return <Loading />;
  const text = data.texts.find((x) => x.locale === lang) ?? null;
  return (
    <PageForm
      // A new form for each language and each save: its fields start from what is saved.
      key={`${lang}|${text?.source ?? ''}|${text?.edited_at ?? ''}`}
      page={data}
      lang={lang}
      text={text}
      onLang={setLang}
      onSaved={setData}
      onBack={onBack}
    />
  );
}

function PageForm({
  page,
  lang,
  text,
  onLang,
  onSaved,
  onBack,
}: {
  page: StaffPage;
  lang: Locale;
  text: PageText | null;
  onLang: (l: Locale) => void;
  onSaved: (p: StaffPage) => void;
  onBack: () => void;
}) {
  const { t, locale } = useI18n();
  const { toast, confirm } = useFeedback();
  const [draft, setDraft] = useState<PageEditBody>({
    title: text?.title ?? '',
    description: text?.description ?? '',
    body_md: text?.body_md ?? '',
  });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const path = `/api/v1/staff/pages/${page.slug}/${lang}`;
  const send = async (method: 'PUT' | 'DELETE') => {
    setBusy(true);
    setFailure(null);
    try {
      onSaved(await api<StaffPage>(method, path, method === 'PUT' ? draft : undefined));
      toast(t(method === 'PUT' ? 'console.pages.saved' : 'console.pages.reverted'));
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    void send('PUT');
  };
  const revert = async () => {
    if (await confirm(t('console.pages.revertConfirm', { language: LOCALE_NAMES[lang] })))
      await send('DELETE');
  };
  const title = t('console.news.editTitle', {
    title:
      (page.texts.find((x) => x.locale === locale) ?? page.texts.find((x) => x.locale === 'en'))?.title ??
      page.slug,
  });
  return (
    <form className="staff-gift__form staff-news" onSubmit={submit} aria-label={title}>
      <button type="button" className="btn btn--ghost btn--sm staff-news__back" onClick={onBack}>
        {t('console.pages.back')}
      </button>
      <h1>{title}</h1>
      <LanguageChips
        current={lang}
        onPick={onLang}
        written={(l) => page.texts.some((x) => x.locale === l)}
        edited={(l) => page.texts.some((x) => x.locale === l && x.source === 'edit')}
      />
      <p className="muted small">
        {text?.source === 'edit' && text.edited_at
          ? t('console.pages.fromConsole', { when: formatDateTime(text.edited_at, locale) })
          : text
            ? t('console.pages.fromRepository')
            : t('console.pages.missing', { language: LOCALE_NAMES[lang] })}
      </p>
      <fieldset className="staff-news__text" lang={htmlLang(lang)}>
        <legend>{LOCALE_NAMES[lang]}</legend>
        <Field
          label={t('console.news.title')}
          dir="auto"
          maxLength={200}
          required
          value={draft.title}
          onChange={(e) => setDraft({ ...draft, title: e.target.value })}
        />
        <Field
          label={t('console.news.description')}
          dir="auto"
          maxLength={300}
          value={draft.description}
          onChange={(e) => setDraft({ ...draft, description: e.target.value })}
        />
        <div className="field">
          <label htmlFor="staff-page-body">{t('console.news.body')}</label>
          <textarea
            id="staff-page-body"
            dir="auto"
            rows={18}
            maxLength={100_000}
            value={draft.body_md}
            onChange={(e) => setDraft({ ...draft, body_md: e.target.value })}
          />
        </div>
      </fieldset>
      <FormError message={failure} />
      <div className="staff-gift__actions">
        <BusyButton busy={busy} disabled={busy} className="btn btn--primary">
          {t('console.pages.save')}
        </BusyButton>
        {text?.source === 'edit' && (
          <button type="button" className="btn btn--ghost" disabled={busy} onClick={() => void revert()}>
            {t('console.pages.revert')}
          </button>
        )}
      </div>
    </form>
  );
}
