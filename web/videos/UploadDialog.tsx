import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import { SHORT_MAX_BYTES, SHORT_MAX_SECONDS, SHORT_TITLE_MAX_CHARS } from '../../common/videos';
import { useI18n, type I18n } from '../i18n/i18n';
import { Field } from '../ui/fields';
import { FormError } from '../ui/form';
import { Modal } from '../ui/Modal';
import { JobProgress, useJob } from './JobProgress';
import { ApiError } from '../lib/api';
import { uploadVideo, videoErrorText } from './videos-api';

/** How long the browser may take to read a file's length before the server is left to judge. */
const METADATA_MS = 5000;

/** A file's length in seconds as this browser reads it; null when it cannot (the server may). */
function durationOf(file: File): Promise<number | null> {
  return new Promise((resolve) => {
    const probe = document.createElement('video');
    const url = URL.createObjectURL(file);
    const done = (d: number | null) => {
      // Once: emptying the element below may report an error of its own.
      probe.onloadedmetadata = null;
      probe.onerror = null;
      window.clearTimeout(timer);
      probe.removeAttribute('src');
      probe.load();
      URL.revokeObjectURL(url);
      resolve(d);
    };
    const timer = window.setTimeout(() => done(null), METADATA_MS);
    probe.preload = 'metadata';
    probe.muted = true;
    probe.onloadedmetadata = () => done(Number.isFinite(probe.duration) ? probe.duration : null);
    probe.onerror = () => done(null);
    probe.src = url;
  });
}

/**
 * What the browser can tell about a file before sending it: too large, or longer than a minute.
 * A file it cannot read goes to the server, which decides (it reads more formats than browsers).
 */
async function checkFile(file: File, t: I18n['t']): Promise<string | null> {
  if (file.size > SHORT_MAX_BYTES) return t('videos.tooBig', { mb: MAX_MB });
  const seconds = await durationOf(file);
  // Half a second of slack: containers round their length up.
  if (seconds !== null && seconds > SHORT_MAX_SECONDS + 0.5) return t('error.short_too_long');
  return null;
}

const MAX_MB = SHORT_MAX_BYTES / 1024 / 1024;

/**
 * Uploading a short video: the file and a title, checked here first; then the upload's progress,
 * the server's processing, and the link to the video once it is ready. Closing stops the upload.
 */
export function UploadDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const fileId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  /** What is wrong with the chosen file itself: sending it again would not help. */
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const { job, setJob, follow } = useJob();
  const upload = useRef<AbortController | null>(null);
  useEffect(() => () => upload.current?.abort(), []);
  const busy = job.step === 'uploading' || job.step === 'processing';

  /** The file chosen last: a slower check of an earlier one must not speak for it. */
  const chosen = useRef<File | null>(null);
  const choose = (f: File | null) => {
    chosen.current = f;
    setFile(f);
    setError(null);
    setProblem(null);
    if (!f) return;
    setChecking(true);
    void checkFile(f, t).then((problem) => {
      if (chosen.current !== f) return;
      setChecking(false);
      setProblem(problem);
    });
  };

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!file || busy) return;
    setError(null);
    const found = await checkFile(file, t);
    if (found) {
      setProblem(found);
      return;
    }
    const ctl = new AbortController();
    upload.current = ctl;
    setJob({ step: 'uploading', sent: 0 });
    try {
      const v = await uploadVideo(
        file,
        title.trim(),
        (sent) => setJob({ step: 'uploading', sent }),
        ctl.signal,
      );
      follow(v);
    } catch (err) {
      if (ctl.signal.aborted) return;
      setJob({ step: 'idle' });
      const name = err instanceof ApiError ? err.error : null;
      if (name === 'payload_too_large') setProblem(t('videos.tooBig', { mb: MAX_MB }));
      // The server read the file and refused it: another file, not another try.
      else if (name === 'short_unreadable' || name === 'short_too_long') setProblem(videoErrorText(t, err));
      else setError(videoErrorText(t, err));
    }
  };

  const failed = job.step === 'failed' ? job.error : null;
  return (
    <Modal label={t('videos.uploadTitle')} onClose={onClose} className="shorts-upload">
      <h2 className="dialog__title">{t('videos.uploadTitle')}</h2>
      {job.step === 'idle' || job.step === 'failed' ? (
        <form className="shorts-upload__form" onSubmit={(e) => void submit(e)}>
          <p className="muted small">{t('videos.uploadRules', { seconds: SHORT_MAX_SECONDS, mb: MAX_MB })}</p>
          {/* The browser's own file button speaks the browser's language: ours speaks the page's. */}
          <div className="field">
            <span id={`${fileId}-label`} className="field__label">
              {t('videos.file')}
            </span>
            <div className="file-pick">
              <input
                id={fileId}
                className="sr-only"
                type="file"
                accept="video/*"
                aria-labelledby={`${fileId}-label`}
                aria-describedby={`${fileId}-name`}
                aria-invalid={problem ? true : undefined}
                onChange={(e) => choose(e.target.files?.[0] ?? null)}
              />
              <label htmlFor={fileId} className="btn btn--ghost btn--sm file-pick__button">
                {t('videos.chooseFile')}
              </label>
              <span id={`${fileId}-name`} className="file-pick__name muted" dir="auto">
                {file?.name ?? t('videos.noFile')}
              </span>
            </div>
          </div>
          <Field
            label={t('videos.titleLabel')}
            value={title}
            maxLength={SHORT_TITLE_MAX_CHARS}
            onChange={(e) => setTitle(e.target.value)}
            dir="auto"
          />
          <FormError message={problem ?? error ?? failed} />
          <button
            type="submit"
            className="btn btn--primary btn--block"
            disabled={!file || checking || problem !== null}
          >
            {checking ? t('common.loading') : t('videos.uploadSubmit')}
          </button>
        </form>
      ) : (
        <JobProgress job={job} />
      )}
    </Modal>
  );
}
