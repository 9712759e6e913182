import { useCallback, useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { Link } from '../ui/Link';
import { followProcessing, videoErrorText, type ShortVideo } from './videos-api';

/** Where a new video is: its file going up, the server making it, done, or refused. */
export type Job =
  | { step: 'idle' }
  | { step: 'uploading'; sent: number }
  | { step: 'processing'; progress: number }
  | { step: 'ready'; id: string }
  | { step: 'failed'; error: string };

/**
 * A new video's way to ready: `follow` takes the server's answer to the upload or clip and asks
 * every second how far it is, until it is ready or failed. Stops when the dialog closes.
 */
export function useJob(): {
  job: Job;
  setJob: (j: Job) => void;
  follow: (v: ShortVideo) => void;
  stop: () => void;
} {
  const { t } = useI18n();
  const [job, setJob] = useState<Job>({ step: 'idle' });
  const running = useRef<AbortController | null>(null);
  const stop = useCallback(() => running.current?.abort(), []);
  useEffect(() => stop, [stop]);
  const follow = useCallback(
    (first: ShortVideo) => {
      running.current?.abort();
      const ctl = new AbortController();
      running.current = ctl;
      const show = (v: ShortVideo) => {
        if (ctl.signal.aborted) return;
        if (v.status === 'ready') setJob({ step: 'ready', id: v.id });
        else if (v.status === 'failed')
          setJob({ step: 'failed', error: videoErrorText(t, v.error ?? 'internal') });
        else setJob({ step: 'processing', progress: v.progress });
      };
      show(first);
      if (first.status !== 'processing') return;
      followProcessing(first.id, show, ctl.signal).catch((err: unknown) => {
        if (!ctl.signal.aborted) setJob({ step: 'failed', error: videoErrorText(t, err) });
      });
    },
    [t],
  );
  return { job, setJob, follow, stop };
}

/** The bar of a job under way, and the link to the video once it is ready. */
export function JobProgress({ job }: { job: Job }) {
  const { t } = useI18n();
  if (job.step === 'uploading' || job.step === 'processing') {
    const share = job.step === 'uploading' ? job.sent : job.progress;
    const percent = Math.round(Math.min(1, Math.max(0, share)) * 100);
    const label = t(job.step === 'uploading' ? 'videos.uploadingPercent' : 'videos.processingPercent', {
      percent,
    });
    return (
      <div className="job" data-step={job.step}>
        <p className="job__label" aria-hidden="true">
          {label}
        </p>
        <progress className="job__bar" max={100} value={percent} aria-label={label} />
      </div>
    );
  }
  if (job.step === 'ready')
    return (
      <div className="job" data-step="ready" role="status">
        <p className="job__label">{t('videos.ready')}</p>
        <Link to={`/videos/${job.id}`} className="btn btn--primary">
          {t('videos.watchIt')}
        </Link>
      </div>
    );
  return null;
}
