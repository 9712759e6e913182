import { useEffect, useId, useState } from 'react';
import { api, ApiError } from '../auth/api';
import type { PublicProfile } from '../pages/data';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from './form';
import { useFeedback } from './feedback';

const MAX_BYTES = 5 * 1024 * 1024;
const TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
const VIEW = 200;

interface Loaded {
  file: File;
  url: string;
  width: number;
  height: number;
}

/**
 * Choose a photo, pick the square to keep (zoom and position, all keyboard-operable sliders) and
 * upload it; the server crops, resizes and stores it.
 */
export function AvatarCropper({ onSaved }: { onSaved: (p: PublicProfile) => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const id = useId();
  const [photo, setPhoto] = useState<Loaded | null>(null);
  const [zoom, setZoom] = useState(1);
  const [offX, setOffX] = useState(0.5);
  const [offY, setOffY] = useState(0.5);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => () => (photo ? URL.revokeObjectURL(photo.url) : undefined), [photo]);

  const choose = (file: File | undefined) => {
    setError(null);
    if (!file) return;
    if (!TYPES.includes(file.type)) return setError(t('profile.photoType'));
    if (file.size > MAX_BYTES) return setError(t('profile.photoTooBig'));
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => {
      setPhoto({ file, url, width: img.naturalWidth, height: img.naturalHeight });
      setZoom(1);
      setOffX(0.5);
      setOffY(0.5);
    };
    img.onerror = () => setError(t('profile.photoType'));
    img.src = url;
  };

  const size = photo ? Math.min(photo.width, photo.height) / zoom : 0;
  const x = photo ? offX * (photo.width - size) : 0;
  const y = photo ? offY * (photo.height - size) : 0;
  const scale = size ? VIEW / size : 1;

  const save = async () => {
    if (!photo) return;
    setBusy(true);
    setError(null);
    try {
      const q = `x=${Math.floor(x)}&y=${Math.floor(y)}&size=${Math.floor(size)}`;
      const saved = await api<PublicProfile>('POST', `/api/v1/me/avatar?${q}`, photo.file);
      toast(t('profile.photoSaved'));
      setPhoto(null);
      onSaved(saved);
    } catch (err) {
      setError(err instanceof ApiError && err.message ? err.message : t('error.network'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="avatar-cropper">
      <label className="btn btn--ghost btn--sm avatar-cropper__pick" htmlFor={`${id}-file`}>
        {t('profile.changePhoto')}
      </label>
      <input
        id={`${id}-file`}
        className="sr-only"
        type="file"
        accept={TYPES.join(',')}
        onChange={(e) => choose(e.target.files?.[0])}
      />
      {photo && (
        <div className="avatar-cropper__editor">
          <div className="avatar-cropper__view" style={{ width: VIEW, height: VIEW }}>
            <img
              src={photo.url}
              alt={t('profile.photo')}
              style={{
                width: photo.width * scale,
                height: photo.height * scale,
                transform: `translate(${-x * scale}px, ${-y * scale}px)`,
              }}
            />
          </div>
          <div className="avatar-cropper__controls">
            <label>
              {t('profile.zoom')}
              <input
                type="range"
                min={1}
                max={4}
                step={0.05}
                value={zoom}
                onChange={(e) => setZoom(Number(e.target.value))}
              />
            </label>
            <label>
              {t('profile.moveX')}
              <input
                type="range"
                min={0}
                max={1}
                step={0.01}
                value={offX}
                onChange={(e) => setOffX(Number(e.target.value))}
              />
            </label>
            <label>
              {t('profile.moveY')}
              <input
                type="range"
                min={0}
                max={1}
                step={0.01}
                value={offY}
                onChange={(e) => setOffY(Number(e.target.value))}
              />
            </label>
            <div className="dialog__actions">
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => setPhoto(null)}>
                {t('common.cancel')}
              </button>
              <BusyButton
                busy={busy}
                disabled={busy}
                type="button"
                className="btn btn--primary btn--sm"
                onClick={() => void save()}
              >
                {t('profile.usePhoto')}
              </BusyButton>
            </div>
          </div>
        </div>
      )}
      <FormError message={error} />
    </div>
  );
}
