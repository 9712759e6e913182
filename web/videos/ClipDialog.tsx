import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import type { LiveInfo } from '../../common/api/live';
import type { ClipBody } from '../../common/api/videos';
import { SHORT_MAX_SECONDS, SHORT_MIN_SECONDS, SHORT_TITLE_MAX_CHARS } from '../../common/videos';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { Field } from '../ui/fields';
import { FormError } from '../ui/form';
import { Modal } from '../ui/Modal';
import { JobProgress, useJob } from './JobProgress';
import { videoErrorText, type ShortVideo } from './videos-api';

/** Seconds as m:ss.s (the in and out points are picked to a tenth of a second). */
function clock(s: number): string {
  const m = Math.floor(s / 60);
  const rest = (s - m * 60).toFixed(1).padStart(4, '0');
  return `${m}:${rest}`;
}

const tenth = (s: number) => Math.round(s * 10) / 10;

/**
 * A highlight of the host's own replay: the replay plays, "Set start" and "Set end" take its
 * current time (the sliders and fields fine-tune them), the selection can be played on its own;
 * the server cuts it and the dialog follows it to ready.
 */
export function ClipDialog({
  vid,
  title: replayTitle,
  onClose,
}: {
  vid: string;
  title: string;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [parts, setParts] = useState<LiveInfo['replay'] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [part, setPart] = useState(0);
  const [from, setFrom] = useState(0);
  const [to, setTo] = useState(0);
  const [title, setTitle] = useState(replayTitle);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const video = useRef<HTMLVideoElement>(null);
  /** While the selection plays on its own: where it stops. */
  const stopAt = useRef<number | null>(null);
  const { job, follow } = useJob();

  useEffect(() => {
    let live = true;
    api<LiveInfo>('GET', `/api/v1/live/${vid}`).then(
      (l) => {
        if (!live) return;
        setParts(l.replay);
        setTo(Math.min(15, l.replay[0]?.seconds ?? 0));
      },
      (err: unknown) => {
        if (live) setLoadError(videoErrorText(t, err));
      },
    );
    return () => {
      live = false;
    };
  }, [vid, t]);

  const length = parts?.[part]?.seconds ?? 0;
  const span = to - from;
  const fits = span >= SHORT_MIN_SECONDS && span <= SHORT_MAX_SECONDS;
  const now = () => tenth(video.current?.currentTime ?? 0);

  const choosePart = (i: number) => {
    setPart(i);
    setFrom(0);
    setTo(Math.min(15, parts?.[i]?.seconds ?? 0));
  };

  const preview = () => {
    const el = video.current;
    if (!el) return;
    el.currentTime = from;
    stopAt.current = to;
    void el.play().catch(() => undefined);
  };

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    if (!fits || sending) return;
    setSending(true);
    setError(null);
    const body: ClipBody = {
      vid,
      part,
      from_ms: Math.round(from * 1000),
      to_ms: Math.round(to * 1000),
      title: title.trim(),
    };
    api<ShortVideo>('POST', '/api/v1/videos/clip', body)
      .then((v) => follow(v))
      .catch((err: unknown) => setError(videoErrorText(t, err)))
      .finally(() => setSending(false));
  };

  const source = parts?.[part];
  const failed = job.step === 'failed' ? job.error : null;
  return (
    <Modal label={t('videos.clip.title')} onClose={onClose} className="shorts-clip">
      <h2 className="dialog__title">{t('videos.clip.title')}</h2>
      {loadError && <FormError message={loadError} />}
      {!parts && !loadError && <p className="muted">{t('common.loading')}</p>}
      {parts?.length === 0 && <p className="notice">{t('live.replayGenerating')}</p>}
      {source && (job.step === 'idle' || job.step === 'failed') && (
        <form className="shorts-clip__form" onSubmit={submit}>
          {parts.length > 1 && (
            <div className="chips" role="group" aria-label={t('videos.clip.part')}>
              {parts.map((p, i) => (
                <button
                  key={p.url}
                  type="button"
                  className="chip"
                  aria-pressed={i === part}
                  onClick={() => choosePart(i)}
                >
                  {t('live.part', { n: i + 1 })}
                </button>
              ))}
            </div>
          )}
          <video
            ref={video}
            key={source.url}
            className="shorts-clip__video"
            src={source.url}
            controls
            playsInline
            preload="metadata"
            onTimeUpdate={(e) => {
              if (stopAt.current !== null && e.currentTarget.currentTime >= stopAt.current) {
                stopAt.current = null;
                e.currentTarget.pause();
              }
            }}
          />
          <div className="shorts-clip__marks">
            <button
              type="button"
              className="btn btn--ghost btn--sm"
              onClick={() => setFrom(Math.min(now(), length))}
            >
              {t('videos.clip.setStart')}
            </button>
            <button
              type="button"
              className="btn btn--ghost btn--sm"
              onClick={() => setTo(Math.min(now(), length))}
            >
              {t('videos.clip.setEnd')}
            </button>
            <button type="button" className="btn btn--ghost btn--sm" onClick={preview} disabled={!fits}>
              {t('videos.clip.preview')}
            </button>
          </div>
          <Point label={t('videos.clip.start')} value={from} max={length} onChange={setFrom} />
          <Point label={t('videos.clip.end')} value={to} max={length} onChange={setTo} />
          <p className={fits ? 'muted' : 'form-error'} role="status">
            {t('videos.clip.length', { from: clock(from), to: clock(to), seconds: tenth(Math.max(0, span)) })}
            {!fits && ` ${t('videos.clip.rule', { min: SHORT_MIN_SECONDS, max: SHORT_MAX_SECONDS })}`}
          </p>
          <Field
            label={t('videos.titleLabel')}
            value={title}
            maxLength={SHORT_TITLE_MAX_CHARS}
            onChange={(e) => setTitle(e.target.value)}
            dir="auto"
          />
          <FormError message={error ?? failed} />
          <button type="submit" className="btn btn--primary btn--block" disabled={!fits || sending}>
            {sending ? t('common.loading') : t('videos.clip.submit')}
          </button>
        </form>
      )}
      <JobProgress job={job} />
    </Modal>
  );
}

/** An in or out point: a slider over the replay and the same time in seconds. */
function Point({
  label,
  value,
  max,
  onChange,
}: {
  label: string;
  value: number;
  max: number;
  onChange: (s: number) => void;
}) {
  const { t } = useI18n();
  const set = (raw: string) => {
    const n = Number(raw);
    if (Number.isFinite(n)) onChange(tenth(Math.min(Math.max(0, n), max)));
  };
  return (
    <fieldset className="shorts-clip__point">
      <legend>{label}</legend>
      <input
        type="range"
        min={0}
        max={max}
        step={0.1}
        value={value}
        aria-label={label}
        onChange={(e) => set(e.target.value)}
      />
      <input
        type="number"
        min={0}
        max={max}
        step={0.1}
        value={value}
        aria-label={t('videos.clip.inSeconds', { point: label })}
        inputMode="decimal"
        onChange={(e) => set(e.target.value)}
      />
    </fieldset>
  );
}
