import { useCallback, useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n';

/** Spec §5: broadcasting needs Chrome 61 or newer (and WebRTC at all). */
export function browserCanBroadcast(): boolean {
  if (typeof RTCPeerConnection === 'undefined' || !(navigator.mediaDevices as MediaDevices | undefined))
    return false;
  const chrome = /Chrome\/(\d+)/.exec(navigator.userAgent);
  return !chrome || Number(chrome[1]) >= 61;
}

export type DeviceProblem = 'denied' | 'none' | null;
export type Orientation = 'portrait' | 'landscape';

/**
 * The camera picture for an orientation: 720×1280 for portrait, 1280×720 for landscape. A
 * landscape camera asked for portrait is cropped and scaled by the browser (Chromium's default
 * resize mode), so the preview, the published stream and what viewers get are all the same shape.
 */
function cameraConstraints(orientation: Orientation): MediaTrackConstraints {
  const [width, height] = orientation === 'portrait' ? [720, 1280] : [1280, 720];
  return { width: { ideal: width }, height: { ideal: height }, aspectRatio: { ideal: width / height } };
}

/**
 * Camera and microphone: the chosen devices' stream in the chosen orientation, the lists to
 * choose from, and problems.
 */
export function useDevices(orientation: Orientation = 'landscape') {
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [problem, setProblem] = useState<DeviceProblem>(null);
  const [cameras, setCameras] = useState<MediaDeviceInfo[]>([]);
  const [mics, setMics] = useState<MediaDeviceInfo[]>([]);
  const [cameraId, setCameraId] = useState('');
  const [micId, setMicId] = useState('');
  const current = useRef<MediaStream | null>(null);
  const shape = useRef(orientation);

  const start = useCallback(async (camera = '', mic = '') => {
    try {
      const next = await navigator.mediaDevices.getUserMedia({
        video: { ...cameraConstraints(shape.current), ...(camera ? { deviceId: { exact: camera } } : {}) },
        audio: mic ? { deviceId: { exact: mic } } : true,
      });
      for (const t of current.current?.getTracks() ?? []) t.stop();
      current.current = next;
      setStream(next);
      setProblem(null);
      const devices = await navigator.mediaDevices.enumerateDevices();
      setCameras(devices.filter((d) => d.kind === 'videoinput'));
      setMics(devices.filter((d) => d.kind === 'audioinput'));
      setCameraId(next.getVideoTracks()[0]?.getSettings().deviceId ?? camera);
      setMicId(next.getAudioTracks()[0]?.getSettings().deviceId ?? mic);
    } catch (err) {
      setProblem(err instanceof DOMException && err.name === 'NotFoundError' ? 'none' : 'denied');
    }
  }, []);

  useEffect(
    () => () => {
      for (const t of current.current?.getTracks() ?? []) t.stop();
    },
    [],
  );

  // Another orientation reshapes the running camera (the same track: the preview follows).
  useEffect(() => {
    if (shape.current === orientation) return;
    shape.current = orientation;
    const track = current.current?.getVideoTracks()[0];
    if (!track) return;
    track.applyConstraints(cameraConstraints(orientation)).catch(() => void start(cameraId, micId));
  }, [orientation, start, cameraId, micId]);

  /**
   * The other camera (a phone's front and back), the microphone left running: the new picture
   * replaces the old one in a fresh stream, which a live broadcast then sends instead.
   */
  const switchCamera = useCallback(async () => {
    const old = current.current;
    const oldVideo = old?.getVideoTracks()[0];
    if (!old || !oldVideo) return;
    const facing = oldVideo.getSettings().facingMode;
    const at = cameras.findIndex((c) => c.deviceId === cameraId);
    const nextId = cameras[(at + 1) % cameras.length]?.deviceId ?? '';
    // A phone says which way its cameras face: ask for the other way (the lens the phone would
    // pick); a camera that says so but has no other side (a laptop's) takes the next in the list.
    const tries: MediaTrackConstraints[] = [{ deviceId: { exact: nextId } }];
    if (facing === 'user' || facing === 'environment')
      tries.unshift({ facingMode: { exact: facing === 'user' ? 'environment' : 'user' } });
    const open = async () => {
      for (const other of tries) {
        const got = await navigator.mediaDevices
          .getUserMedia({ video: { ...cameraConstraints(shape.current), ...other } })
          .catch(() => null);
        if (got) return got.getVideoTracks()[0];
      }
      return undefined;
    };
    let video = await open();
    if (!video) {
      // Many phones open one camera at a time: let go of this one, then try again.
      oldVideo.stop();
      video = await open();
      if (!video) {
        await start(cameraId, micId);
        return;
      }
    }
    oldVideo.stop();
    const next = new MediaStream([video, ...old.getAudioTracks()]);
    current.current = next;
    setStream(next);
    setCameraId(video.getSettings().deviceId ?? nextId);
  }, [cameras, cameraId, micId, start]);

  return {
    stream,
    problem,
    cameras,
    mics,
    cameraId,
    micId,
    start,
    switchCamera,
    chooseCamera: (id: string) => void start(id, micId),
    chooseMic: (id: string) => void start(cameraId, id),
  };
}

/** The microphone's level, 0 to 1, sampled about ten times a second. */
export function useMicLevel(stream: MediaStream | null): number {
  const [level, setLevel] = useState(0);
  useEffect(() => {
    const track = stream?.getAudioTracks()[0];
    if (!stream || !track) return;
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 512;
    ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const timer = window.setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const v of samples) sum += v * v;
      // RMS on a rough loudness scale: normal speech lands around the middle.
      setLevel(Math.min(1, Math.sqrt(sum / samples.length) * 4));
    }, 100);
    return () => {
      window.clearInterval(timer);
      void ctx.close();
    };
  }, [stream]);
  return level;
}

/** A short tone through the speakers (spec: speaker test). */
function playTestSound(): void {
  const ctx = new AudioContext();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.frequency.value = 660;
  gain.gain.setValueAtTime(0.2, ctx.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.6);
  osc.connect(gain).connect(ctx.destination);
  osc.start();
  osc.stop(ctx.currentTime + 0.6);
  osc.addEventListener('ended', () => void ctx.close());
}

/** A muted, mirrored-free preview of a stream, shaped as the broadcast will be. */
export function Preview({
  stream,
  className,
  orientation = 'landscape',
}: {
  stream: MediaStream | null;
  className?: string;
  orientation?: Orientation;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.srcObject = stream;
  }, [stream]);
  return (
    <video
      ref={ref}
      className={`${className ?? 'studio__preview'} studio__preview--${orientation}`}
      autoPlay
      muted
      playsInline
    />
  );
}

/** Device check (spec §2): camera preview, microphone meter, speaker test, device pickers. */
export function DeviceCheck({
  devices,
  orientation,
}: {
  devices: ReturnType<typeof useDevices>;
  orientation: Orientation;
}) {
  const { t } = useI18n();
  const level = useMicLevel(devices.stream);
  return (
    <div className="device-check">
      <Preview stream={devices.stream} orientation={orientation} />
      {!devices.stream && (
        <div className="device-check__start">
          <p className="muted">{t('studio.devicesHelp')}</p>
          <button type="button" className="btn btn--primary" onClick={() => void devices.start()}>
            {t('studio.allowDevices')}
          </button>
        </div>
      )}
      {devices.problem && (
        <p className="form-error" role="alert">
          {devices.problem === 'none' ? t('studio.noDevices') : t('studio.devicesDenied')}
        </p>
      )}
      {devices.stream && (
        <div className="device-check__controls">
          <label className="field">
            <span>{t('studio.camera')}</span>
            <select value={devices.cameraId} onChange={(e) => devices.chooseCamera(e.target.value)}>
              {devices.cameras.map((d, i) => (
                <option key={d.deviceId || i} value={d.deviceId}>
                  {d.label || `${t('studio.camera')} ${i + 1}`}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{t('studio.microphone')}</span>
            <select value={devices.micId} onChange={(e) => devices.chooseMic(e.target.value)}>
              {devices.mics.map((d, i) => (
                <option key={d.deviceId || i} value={d.deviceId}>
                  {d.label || `${t('studio.microphone')} ${i + 1}`}
                </option>
              ))}
            </select>
          </label>
          <div className="device-check__meter">
            <span id="mic-level-label">{t('studio.micLevel')}</span>
            <meter aria-labelledby="mic-level-label" min={0} max={1} low={0.15} high={0.85} value={level} />
          </div>
          <button type="button" className="btn btn--ghost" onClick={playTestSound}>
            {t('studio.testSpeaker')}
          </button>
        </div>
      )}
    </div>
  );
}
