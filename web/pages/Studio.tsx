import type { Answer } from '../../common/api/envelope';
import type { liveSchema } from '../../common/api/live';
import { LIVE_CATEGORIES, type LiveCategory } from '../../common/discovery';
import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { formatCount, formatDuration } from '../../common/format';
import type { EndReason, RoomEvent } from '../../common/realtime';
import { localizedPath } from '../../common/routes';
import { useLeaveGuard } from '../lib/router';
import { api, ApiError } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { SignInPrompt } from '../ui/SignInPrompt';
import { BusyButton, FormError } from '../ui/form';
import { CopyLinkButton } from '../ui/CopyLinkButton';
import { ImageCropper, type CropBox } from '../ui/ImageCropper';
import { Link } from '../ui/Link';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { Broadcast, type Started } from '../live/broadcast';
import { GiftOverlay } from '../live/GiftOverlay';
import { ReceivedGifts } from '../live/ReceivedGifts';
import { realtime } from '../live/realtime';
import { AudienceChip, RoomPanel, type RoomSheet } from '../live/RoomPanel';
import { useKeyboardInset } from '../live/use-swipe';
import { CameraSwitchIcon, CloseIcon } from '../ui/icons';
import { ShareButton } from '../live/ShareButton';
import { PkArena } from '../live/pk/PkArena';
import { PkInvites } from '../live/pk/PkInvites';
import { usePkBattle } from '../live/pk/use-pk';
import { browserCanBroadcast, DeviceCheck, Preview, useDevices, type Orientation } from '../live/devices';

type Phase =
  | { id: 'setup' }
  | { id: 'live'; broadcast: Broadcast; since: number }
  | { id: 'ended'; duration: number; peak: number; reason: EndReason | null };

/** What the summary says about how the live ended, when the broadcaster did not end it. */
const ENDED_BECAUSE = {
  lost: 'error.unstable',
  taken_over: 'studio.takenOver',
  lapsed: 'studio.endedLapsed',
  staff: 'studio.endedByStaff',
} as const;

/** /broadcast and /studio: device check, details, go live, the live view, the summary. */
export default function Studio() {
  const { t } = useI18n();
  const { user } = useAuth();
  const [supported, setSupported] = useState(true);
  const [orientation, setOrientation] = useState<Orientation>('landscape');
  const devices = useDevices(orientation);
  const [phase, setPhase] = useState<Phase>({ id: 'setup' });
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the browser check needs the browser
    setSupported(browserCanBroadcast());
    // A phone is held upright: its lives are portrait unless the host chooses otherwise.
    if (matchMedia('(max-width: 760px)').matches) setOrientation('portrait');
  }, []);

  if (!supported) return <StudioNotice text={t('studio.oldBrowser')} />;
  if (!user) return <SignInPrompt title={t('studio.signInTitle')} className="studio studio--center" />;
  if (phase.id === 'ended') {
    return (
      <div className="studio studio--center">
        {phase.reason && phase.reason !== 'host' && (
          <p className="form-error" role="alert">
            {t(ENDED_BECAUSE[phase.reason])}
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
        orientation={orientation}
        {...(devices.cameras.length > 1 ? { onSwitchCamera: devices.switchCamera } : {})}
        onEnded={(duration, peak, reason) => setPhase({ id: 'ended', duration, peak, reason })}
      />
    );
  }
  return (
    <div className="studio">
      <h1 className="studio__title">{t('meta.studio.title')}</h1>
      <section className="studio__section" aria-labelledby="step-devices">
        <h2 id="step-devices">{t('studio.stepDevices')}</h2>
        <DeviceCheck devices={devices} orientation={orientation} />
      </section>
      <DetailsForm
        stream={devices.stream}
        orientation={orientation}
        onOrientation={setOrientation}
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

/** Data step (spec §2): title (required), portrait or landscape (the camera follows), then go live. */
function DetailsForm({
  stream,
  orientation,
  onOrientation,
  onLive,
}: {
  stream: MediaStream | null;
  orientation: Orientation;
  onOrientation: (o: Orientation) => void;
  onLive: (b: Broadcast) => void;
}) {
  const { t } = useI18n();
  const { toast, confirm } = useFeedback();
  const [title, setTitle] = useState('');
  const [category, setCategory] = useState<LiveCategory>('chat');
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
      const begin = (takeOver: boolean) =>
        api<Started>('POST', '/api/v1/live', {
          title: title.trim(),
          orientation,
          category,
          take_over: takeOver,
        });
      let started: Started;
      try {
        started = await begin(false);
      } catch (err) {
        // One live per broadcaster: live in another tab (or from OBS), ask before ending that one.
        if (!(err instanceof ApiError && err.error === 'live_elsewhere')) throw err;
        if (!(await confirm(t('studio.takeOverConfirm'), { title: t('studio.takeOverTitle') }))) return;
        started = await begin(true);
      }
      if (cover) {
        const { x, y, width: w, height: h } = cover.box;
        // A cover that fails to upload does not hold the broadcast back.
        await api('POST', `/api/v1/live/${started.vid}/cover?x=${x}&y=${y}&w=${w}&h=${h}`, cover.file).catch(
          (err: unknown) => toast(errorMessage(t, err)),
        );
      }
      const broadcast = new Broadcast(started, stream);
      try {
        await broadcast.start();
      } catch (err) {
        // Not left behind as this broadcaster's live: going live again would ask to take it over.
        await api('POST', `/api/v1/live/${started.vid}/end`, {}).catch(() => undefined);
        throw err;
      }
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
      <label className="field">
        <span>{t('studio.category')}</span>
        <select value={category} onChange={(e) => setCategory(e.target.value as LiveCategory)}>
          {LIVE_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {t(`category.${c}`)}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="studio__orientation">
        <legend>{t('studio.orientation')}</legend>
        {(['portrait', 'landscape'] as const).map((o) => (
          <label key={o} className="check">
            <input
              type="radio"
              name="orientation"
              checked={orientation === o}
              onChange={() => onOrientation(o)}
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
      {/* Voice only, with co-hosts: an audio room instead of a camera live. */}
      <Link to="/audio/new" className="btn btn--link">
        {t('audio.startLink')}
      </Link>
    </form>
  );
}

/**
 * The live view: preview, LIVE and time, viewers, share link, chat and gift tabs, end. On a phone
 * the preview fills the screen with the room over it, as viewers see theirs: the chat at the
 * bottom, the audience, top fans and gifts as sheets, the camera switch, share and end at the top.
 */
function LiveView({
  broadcast,
  since,
  stream,
  orientation,
  onSwitchCamera,
  onEnded,
}: {
  broadcast: Broadcast;
  since: number;
  stream: MediaStream | null;
  orientation: Orientation;
  /** Present when there is another camera to switch to. */
  onSwitchCamera?: () => Promise<void>;
  onEnded: (duration: number, peak: number, reason: EndReason | null) => void;
}) {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const { confirm, toast } = useFeedback();
  const [now, setNow] = useState(since);
  const [viewers, setViewers] = useState(0);
  const [state, setState] = useState<'live' | 'reconnecting'>('live');
  // LIVE is what viewers get: shown once the server has the media and says so (its room's host
  // event, or the broadcast's status), not when this tab's connection is up a moment earlier.
  const [onAir, setOnAir] = useState(false);
  const [sheet, setSheet] = useState<RoomSheet | null>(null);
  const [switching, setSwitching] = useState(false);
  const ending = useRef(false);
  const page = useRef<HTMLDivElement>(null);
  useKeyboardInset(page);
  const { vid } = broadcast.started;
  const shareUrl = `${window.location.origin}${localizedPath(locale, `/v/${vid}`)}`;
  // A PK battle: the hosts see and hear each other; the winner names the loser's dare.
  const pk = usePkBattle(vid);
  const pkSide = pk ? (pk.battle.a.vid === vid ? 'a' : 'b') : null;

  useEffect(() => {
    const finish = async (reason: EndReason | null) => {
      if (ending.current) return;
      ending.current = true;
      const summary = await broadcast.end();
      onEnded(
        summary?.duration_seconds ?? Math.round((Date.now() - since) / 1000),
        summary?.peak_viewers ?? 0,
        reason,
      );
    };
    broadcast.listen({
      state: setState,
      lost: () => void finish('lost'),
      // The server no longer takes this broadcast's media: it says why it ended.
      over: () =>
        void api<Answer<typeof liveSchema>>('GET', `/api/v1/live/${vid}`).then(
          (live) => finish(live.ended_reason ?? 'lapsed'),
          () => finish('lost'),
        ),
    });
    // The room says at once when the broadcast ends without this tab (another tab took over,
    // or the server ended it), instead of this tab reconnecting to nothing.
    const host = (e: RoomEvent) => {
      if (e.t !== 'host') return;
      if (e.state === 'ended') void finish(e.reason ?? null);
      else if (e.state === 'live') setOnAir(true);
    };
    const leave = realtime().join(vid, {
      joined: (events) => {
        events.forEach(host);
        // The room's history may not reach back to the live event (a busy chat): ask once.
        void api<Answer<typeof liveSchema>>('GET', `/api/v1/live/${vid}`).then(
          (live) => live.status === 'live' && setOnAir(true),
          () => undefined,
        );
      },
      event: host,
      count: () => undefined,
    });
    const clock = window.setInterval(() => setNow(Date.now()), 1000);
    return () => {
      leave();
      window.clearInterval(clock);
    };
  }, [broadcast, vid, since, onEnded]);

  // Another camera: its picture goes out on the same connection.
  useEffect(() => {
    if (stream) broadcast.useStream(stream).catch(() => undefined);
  }, [broadcast, stream]);
  const switchCamera = async () => {
    if (!onSwitchCamera || switching) return;
    setSwitching(true);
    await onSwitchCamera().finally(() => setSwitching(false));
  };

  // Closing the tab (or reloading) while live: the browser asks first; if it closes anyway, the
  // broadcast is hung up on the way out, so viewers see it ended at once instead of a frozen frame.
  useEffect(() => {
    const ask = (e: BeforeUnloadEvent) => {
      if (!ending.current) e.preventDefault();
    };
    const hangUp = () => {
      if (ending.current) return;
      ending.current = true;
      broadcast.hangUp();
    };
    window.addEventListener('beforeunload', ask);
    window.addEventListener('pagehide', hangUp);
    return () => {
      window.removeEventListener('beforeunload', ask);
      window.removeEventListener('pagehide', hangUp);
    };
  }, [broadcast]);

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
      'host',
    );
  };

  const viewerCount = t('home.viewers', { count: viewers, formatted: formatCount(viewers, locale) });
  return (
    <div className="studio studio--live" ref={page}>
      <div className={`studio__stage${pk ? ' studio__stage--pk' : ''}`}>
        <Preview
          stream={stream}
          orientation={orientation}
          className="studio__preview studio__preview--live"
        />
        {pk && (
          <PkArena
            vid={vid}
            state={pk}
            muted={false}
            canDare={pk.battle.phase === 'punish' && pk.battle.winner === pkSide}
            onRematch={(b) => {
              const them = (b.a.vid === vid ? b.b : b.a).host;
              api('POST', '/api/v1/pk/invites', {
                to: them.uid,
                minutes: Math.round(b.round_seconds / 60),
                rematch_of: b.id,
              }).then(
                () => toast(t('pk.inviteSent', { name: them.nickname })),
                (err: unknown) => toast(errorMessage(t, err)),
              );
            }}
          />
        )}
        <GiftOverlay vid={vid} />
        <div className="studio__overlay">
          <div className="studio__status">
            {onAir ? (
              <span className="live-badge">{t('studio.live')}</span>
            ) : (
              <span className="live-badge live-badge--waiting" role="status">
                {t('studio.connecting')}
              </span>
            )}
            <span className="studio__clock">
              {formatDuration(Math.max(0, Math.round((now - since) / 1000)))}
            </span>
            <span className="studio__viewers live-desktop-only">{viewerCount}</span>
          </div>
          <div className="studio__tools">
            {onSwitchCamera && (
              <button
                type="button"
                className="round-button"
                aria-label={t('studio.switchCamera')}
                title={t('studio.switchCamera')}
                aria-busy={switching}
                onClick={() => void switchCamera()}
              >
                <CameraSwitchIcon />
              </button>
            )}
            {user && <PkInvites uid={user.uid} battling={pk !== null && pk.battle.phase !== 'end'} />}
            <ShareButton url={shareUrl} title={t('studio.share')} className="round-button live-phone-only" />
            <button
              type="button"
              className="round-button live-phone-only"
              aria-label={t('studio.end')}
              title={t('studio.end')}
              onClick={() => void end()}
            >
              <CloseIcon />
            </button>
          </div>
          <div className="studio__chips live-phone-only">
            <AudienceChip viewers={viewers} onOpen={() => setSheet('audience')} />
            <button type="button" className="live-room-bar__chip" onClick={() => setSheet('fans')}>
              {t('room.tabFans')}
            </button>
            <button type="button" className="live-room-bar__chip" onClick={() => setSheet('extra')}>
              {t('studio.tabGifts')}
            </button>
          </div>
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
          {/* The phone's own share sheet, where the browser has one. */}
          {typeof navigator.share === 'function' && <ShareButton url={shareUrl} title={t('studio.share')} />}
        </div>
        <RoomPanel
          vid={vid}
          hostUid={user?.uid ?? 0}
          viewers={viewers}
          onViewers={setViewers}
          extra={{ label: t('studio.tabGifts'), content: <ReceivedGifts vid={vid} /> }}
          sheet={sheet}
          onSheet={setSheet}
        />
        <button type="button" className="btn btn--danger btn--block studio__end" onClick={() => void end()}>
          {t('studio.end')}
        </button>
      </aside>
    </div>
  );
}
