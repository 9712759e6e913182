import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import type { Request } from '../../common/api/envelope';
import type { feedbackBody, FeedbackAnswer } from '../../common/api/feedback';
import {
  FEEDBACK_CATEGORIES,
  FEEDBACK_CONTACT_MAX_CHARS,
  FEEDBACK_MAX_CHARS,
  type FeedbackCategory,
} from '../../common/feedback';
import { countGraphemes } from '../../common/validation';
import { feedbackQuery } from '../feedback/links';
import { readBase64, screenshotProblem } from '../feedback/screenshot';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useConfig } from '../lib/config';
import { errorMessage } from '../lib/errors';
import type { PageProps } from '../lib/page';
import { useRouter } from '../lib/router';
import { FormError, BusyButton } from '../ui/form';
import { Link } from '../ui/Link';

interface Shot {
  file: File;
  preview: string;
}

/**
 * /feedback (spec §2: feedback or suggestion form): a category, up to 1,000 characters, an optional
 * screenshot and contact; sent with the page it was opened from, the language and the build.
 */
export default function Feedback({ payload }: PageProps) {
  const { t, locale } = useI18n();
  const { siteName, buildId } = useConfig();
  const { navigate } = useRouter();
  const asked = feedbackQuery(payload.route.url);
  const [category, setCategory] = useState<FeedbackCategory | null>(asked.category);
  const [text, setText] = useState('');
  const [contact, setContact] = useState('');
  const [shot, setShot] = useState<Shot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const ids = useId();
  const length = countGraphemes(text.trim());

  // The preview's object URL lives as long as the choice.
  useEffect(() => (shot ? () => URL.revokeObjectURL(shot.preview) : undefined), [shot]);
  // The thank-you replaces the form: focus moves to its heading so it is read out.
  useEffect(() => {
    if (sent) heading.current?.focus();
  }, [sent]);

  const choose = (file: File | undefined) => {
    setError(null);
    if (!file) return;
    const problem = screenshotProblem(file);
    if (problem)
      return setError(t(problem === 'size' ? 'feedback.screenshotTooBig' : 'feedback.screenshotBad'));
    setShot({ file, preview: URL.createObjectURL(file) });
  };

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!category) return setError(t('feedback.pickCategory'));
    if (length === 0) return setError(t('feedback.textRequired'));
    if (length > FEEDBACK_MAX_CHARS) return setError(t('feedback.tooLong', { max: FEEDBACK_MAX_CHARS }));
    if (countGraphemes(contact.trim()) > FEEDBACK_CONTACT_MAX_CHARS)
      return setError(t('feedback.contactTooLong', { max: FEEDBACK_CONTACT_MAX_CHARS }));
    setBusy(true);
    setError(null);
    try {
      const body: Request<typeof feedbackBody> = {
        category,
        text: text.trim(),
        contact: contact.trim(),
        page: asked.from,
        locale,
        appVersion: buildId,
        ...(shot && { screenshot: await readBase64(shot.file) }),
      };
      await api<FeedbackAnswer>('POST', '/api/v1/feedback', body);
      setSent(true);
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  const again = () => {
    setText('');
    setShot(null);
    setSent(false);
  };

  if (sent)
    return (
      <div className="center-page feedback-thanks">
        <h1 ref={heading} tabIndex={-1}>
          {t('feedback.thanks')}
        </h1>
        <p>{t('feedback.thanksText', { site: siteName })}</p>
        <div className="feedback-thanks__actions">
          <a
            className="btn btn--primary"
            href={asked.from}
            onClick={(e) => {
              e.preventDefault();
              navigate(asked.from);
            }}
          >
            {t('feedback.back')}
          </a>
          <button type="button" className="btn btn--ghost" onClick={again}>
            {t('feedback.another')}
          </button>
        </div>
      </div>
    );

  return (
    <div className="narrow feedback">
      <header className="page-head">
        <h1>{t('feedback.title')}</h1>
        <p className="muted">{t('feedback.intro', { site: siteName })}</p>
      </header>
      <form className="feedback__form" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset className="feedback__categories">
          <legend>{t('feedback.category')}</legend>
          {FEEDBACK_CATEGORIES.map((c) => (
            <label key={c} className="feedback__category">
              <input
                type="radio"
                name="feedback-category"
                value={c}
                checked={category === c}
                onChange={() => {
                  setCategory(c);
                  setError(null);
                }}
              />
              <span>{t(`feedback.categories.${c}`)}</span>
            </label>
          ))}
        </fieldset>

        <div className="field">
          <label htmlFor={`${ids}-text`}>{t('feedback.text')}</label>
          <textarea
            id={`${ids}-text`}
            value={text}
            rows={6}
            dir="auto"
            aria-describedby={`${ids}-count`}
            aria-invalid={length > FEEDBACK_MAX_CHARS ? true : undefined}
            onChange={(e) => {
              setText(e.target.value);
              setError(null);
            }}
          />
          <p
            id={`${ids}-count`}
            className={
              length > FEEDBACK_MAX_CHARS ? 'form-error small feedback__count' : 'muted small feedback__count'
            }
          >
            {t('feedback.count', { count: length, max: FEEDBACK_MAX_CHARS })}
          </p>
        </div>

        <div className="field feedback__shot">
          <span className="feedback__label" id={`${ids}-shot`}>
            {t('feedback.screenshot')}
          </span>
          {shot ? (
            <div className="feedback__preview">
              <img src={shot.preview} alt={t('feedback.screenshotAlt')} />
              <span className="feedback__file" dir="auto">
                {shot.file.name}
              </span>
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => setShot(null)}>
                {t('feedback.screenshotRemove')}
              </button>
            </div>
          ) : (
            <label className="btn btn--ghost feedback__pick">
              {t('feedback.screenshotAdd')}
              <input
                type="file"
                accept="image/jpeg,image/png,image/webp,image/gif"
                className="sr-only"
                aria-describedby={`${ids}-shot-hint`}
                onChange={(e) => {
                  choose(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
            </label>
          )}
          <p id={`${ids}-shot-hint`} className="muted small">
            {t('feedback.screenshotHint')}
          </p>
        </div>

        <div className="field">
          <label htmlFor={`${ids}-contact`}>{t('feedback.contact')}</label>
          <input
            id={`${ids}-contact`}
            value={contact}
            autoComplete="email"
            dir="auto"
            aria-describedby={`${ids}-contact-hint`}
            onChange={(e) => setContact(e.target.value)}
          />
          <p id={`${ids}-contact-hint`} className="muted small">
            {t('feedback.contactHint')}
          </p>
        </div>

        <FormError message={error} />
        <BusyButton busy={busy}>{t('feedback.send')}</BusyButton>
        <p className="muted small">
          {t('feedback.privacy')} <Link to="/privacy">{t('page.privacy')}</Link>
        </p>
      </form>
    </div>
  );
}
