import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { formatCount } from '../../common/format';
import { localizedPath } from '../../common/routes';
import { useLeaveGuard } from '../app/router';
import { api } from '../auth/api';
import { useAuth } from '../auth/AuthContext';
import { errorMessage } from '../auth/fields';
import { SignInPrompt } from '../auth/SignInPrompt';
import { BusyButton, FormError } from '../components/form';
import { CopyLinkButton } from '../components/CopyLinkButton';
import { ImageCropper, type CropBox } from '../components/ImageCropper';
import { Link } from '../components/Link';
import { useFeedback } from '../components/feedback';
import { useI18n } from '../i18n/i18n';
import { Broadcast, type Started } from '../live/broadcast';
import { GiftOverlay } from '../live/GiftOverlay';
import { ReceivedGifts } from '../live/ReceivedGifts';
import { RoomPanel } from '../live/RoomPanel';
import { browserCanBroadcast, DeviceCheck, Preview, useDevices } from '../live/devices';

type Phase =
  | { id: 'setup' }
  | { id: 'live'; broadcast: Broadcast; since: number }
  | { id: 'ended'; duration: number; peak: number; lost: boolean };

/** /broadcast and /studio: device check, details, go live, the live view, the summary. */
export default function Studio() {
  const { t } = useI18n();
  const { user } = useAuth();
  const [supported, setSupported] = useState(true);
  const devices = useDevices();
  const [phase, setPhase] = useState<Phase>({ id: 'setup' });
  // eslint-disable-next-line react-hooks/set-state-in-effect -- the browser check needs the browser
  useEffect(() => setSupported(browserCanBroadcast()), []);

  if (!supported) return <StudioNotice text={t('studio.oldBrowser')} />;
  if (!user) return <SignInPrompt title={t('studio.signInTitle')} className="studio studio--center" />;
  if (phase.id === 'ended') {
    return (
      <div className="studio studio--center">
        {phase.lost && (
          <p className="form-error" role="alert">
            {t('error.unstable')}
          </p>
        )}
        <h1>{t('studio.endedTitle')}</h1>
        <dl className="studio__summary">
          <dt>{t('studio.duration')}</dt>
          <dd>{formatDuration(phase.duration)}</dd>
          <dt>{t('studio.peakViewers')}</dt>
          <dd>{phase.peak}</dd>
        </dl>
        <button type="button" className="btn btn--primary" onClick={() => setPhase({ id: 'setup' })}>
          {t('studio.again')}
        </button>
        <Link to="/" className="btn btn--ghost">
          {t('common.backHome')}
        </Link>
      </div>
    );
  }
  if (phase.id === 'live') {
    return (
      <LiveView
        broadcast={phase.broadcast}
        since={phase.since}
        stream={devices.stream}
        onEnded={(duration, peak, lost) => setPhase({ id: 'ended', duration, peak, lost })}
      />
    );
  }
  return (
    <div className="studio">
      <h1 className="studio__title">{t('meta.studio.title')}</h1>
      <section className="studio__section" aria-labelledby="step-devices">
        <h2 id="step-devices">{t('studio.stepDevices')}</h2>
        <DeviceCheck devices={devices} />
      </section>
      <DetailsForm
        stream={devices.stream}
        onLive={(broadcast) => setPhase({ id: 'live', broadcast, since: Date.now() })}
      />
    </div>
  );
}

function StudioNotice({ text }: { text: string }) {
  return (
    <div className="studio studio--center">
      <p className="form-error" role="alert">
        {text}
      </p>
    </div>
  );
}

/** Spec §5 cover rules, checked here as the server does. */
const COVER_TYPES = ['image/gif', 'image/jpeg', 'image/png'];
const COVER_MAX_BYTES = 500 * 1024;

/** The kept part of the cover, drawn small for the form. */
async function coverPreview(file: File, box: CropBox): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const canvas = document.createElement('canvas');
  canvas.width = 180;
  canvas.height = 240;
  canvas.getContext('2d')?.drawImage(bitmap, box.x, box.y, box.width, box.height, 0, 0, 180, 240);
  bitmap.close();
  return canvas.toDataURL('image/jpeg', 0.85);
}

function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** Data step (spec §2): title (required), portrait or landscape, then go live. */
function DetailsForm({ stream, onLive }: { stream: MediaStream | null; onLive: (b: Broadcast) => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [title, setTitle] = useState('');
  const [orientation, setOrientation] = useState<'portrait' | 'landscape'>('landscape');
  const [cover, setCover] = useState<{ file: File; box: CropBox; preview: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disabled = busy || !stream || !title.trim();

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled || !stream) return;
    setBusy(true);
    setError(null);
    try {
      const started = await api<Started>('POST', '/api/v1/live', { title: title.trim(), orientation });
      if (cover) {
        const { x, y, width: w, height: h } = cover.box;
        // A cover that fails to upload does not hold the broadcast back.
        await api('POST', `/api/v1/live/${started.vid}/cover?x=${x}&y=${y}&w=${w}&h=${h}`, cover.file).catch(
          (err: unknown) => toast(errorMessage(t, err)),
        );
      }
      const broadcast = new Broadcast(started, stream);
      await broadcast.start();
      onLive(broadcast);
    } catch (err) {
      const message = errorMessage(t, err);
      setError(message === t('error.network') ? t('error.createVideoFailed') : message);
      toast(t('error.createVideoFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="studio__section"
      aria-labelledby="step-details"
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      <h2 id="step-details">{t('studio.stepDetails')}</h2>
      <label className="field">
        <span>{t('studio.title')}</span>
        <input
          value={title}
          maxLength={60}
          placeholder={t('studio.titlePlaceholder')}
          onChange={(e) => setTitle(e.target.value)}
          required
        />
      </label>
      <fieldset className="studio__orientation">
        <legend>{t('studio.orientation')}</legend>
        {(['portrait', 'landscape'] as const).map((o) => (
          <label key={o} className="check">
            <input
              type="radio"
              name="orientation"
              checked={orientation === o}
              onChange={() => setOrientation(o)}
            />{' '}
            {t(o === 'portrait' ? 'studio.portrait' : 'studio.landscape')}
          </label>
        ))}
      </fieldset>
      <div className="studio__cover">
        <span className="studio__cover-label">{t('studio.cover')}</span>
        {cover && (
          <img
            className="studio__cover-preview"
            src={cover.preview}
            alt={t('studio.cover')}
            width={90}
            height={120}
          />
        )}
        <p className="muted small">{t('studio.coverHelp')}</p>
        <ImageCropper
          aspect={3 / 4}
          types={COVER_TYPES}
          maxBytes={COVER_MAX_BYTES}
          viewWidth={150}
          messages={{
            pick: t('studio.addCover'),
            image: t('studio.cover'),
            use: t('studio.useCover'),
            wrongType: t('studio.coverType'),
            tooBig: t('studio.coverTooBig'),
          }}
          onUse={async (file, box) => {
            setCover({ file, box, preview: await coverPreview(file, box) });
            return null;
          }}
        />
      </div>
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('studio.goLive')}
      </BusyButton>
    </form>
  );
}

/** The live view: preview, LIVE and time, viewers, share link, chat and gift tabs, end. */
function LiveView({
  broadcast,
  since,
  stream,
  onEnded,
}: {
  broadcast: Broadcast;
  since: number;
  stream: MediaStream | null;
  onEnded: (duration: number, peak: number, lost: boolean) => void;
}) {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const { confirm } = useFeedback();
  const [now, setNow] = useState(since);
  const [viewers, setViewers] = useState(0);
  const [state, setState] = useState<'live' | 'reconnecting'>('live');
  const ending = useRef(false);
  const { vid } = broadcast.started;
  const shareUrl = `${window.location.origin}${localizedPath(locale, `/v/${vid}`)}`;

  useEffect(() => {
    const finish = async (lost: boolean) => {
      if (ending.current) return;
      ending.current = true;
      const summary = await broadcast.end();
      onEnded(
        summary?.duration_seconds ?? Math.round((Date.now() - since) / 1000),
        summary?.peak_viewers ?? 0,
        lost,
      );
    };
    broadcast.listen({ state: setState, lost: () => void finish(true) });
    const clock = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(clock);
  }, [broadcast, vid, since, onEnded]);

  // Leaving the studio while live ends the broadcast, after asking.
  const leave = useCallback(async () => {
    if (ending.current) return true;
    if (!(await confirm(t('studio.leaveConfirm')))) return false;
    ending.current = true;
    await broadcast.end();
    return true;
  }, [broadcast, confirm, t]);
  useLeaveGuard(leave);

  const end = async () => {
    if (!(await confirm(t('studio.endConfirm')))) return;
    if (ending.current) return;
    ending.current = true;
    const summary = await broadcast.end();
    onEnded(
      summary?.duration_seconds ?? Math.round((Date.now() - since) / 1000),
      summary?.peak_viewers ?? 0,
      false,
    );
  };

  return (
    <div className="studio studio--live">
      <div className="studio__stage">
        <Preview stream={stream} className="studio__preview studio__preview--live" />
        <GiftOverlay vid={vid} />
        <div className="studio__overlay">
          <span className="live-badge">{t('studio.live')}</span>
          <span className="studio__clock">
            {formatDuration(Math.max(0, Math.round((now - since) / 1000)))}
          </span>
          <span className="studio__viewers">
            {t('home.viewers', { count: viewers, formatted: formatCount(viewers, locale) })}
          </span>
        </div>
        {state === 'reconnecting' && (
          <p className="studio__banner" role="status">
            {t('studio.reconnecting')}
          </p>
        )}
      </div>
      <aside className="studio__side">
        <div className="studio__share">
          <label className="field">
            <span>{t('studio.share')}</span>
            <input readOnly value={shareUrl} onFocus={(e) => e.target.select()} />
          </label>
          <CopyLinkButton text={shareUrl} />
        </div>
        <RoomPanel
          vid={vid}
          hostUid={user?.uid ?? 0}
          viewers={viewers}
          onViewers={setViewers}
          extra={{ label: t('studio.tabGifts'), content: <ReceivedGifts vid={vid} /> }}
        />
        <button type="button" className="btn btn--danger btn--block" onClick={() => void end()}>
          {t('studio.end')}
        </button>
      </aside>
    </div>
  );
}
