import { useEffect, useId, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from './form';

/** What to keep of the image, in the (EXIF-rotated) image's pixels. */
export interface CropBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Loaded {
  file: File;
  url: string;
  width: number;
  height: number;
}

/**
 * Choose an image and the part to keep (zoom and position, all keyboard-operable sliders) at a
 * fixed aspect ratio; `onUse` uploads it. Shared by the avatar (square) and the live cover (3:4).
 */
export function ImageCropper({
  aspect,
  types,
  maxBytes,
  messages,
  onUse,
  viewWidth = 200,
}: {
  /** width / height of the kept part */
  aspect: number;
  types: string[];
  maxBytes: number;
  messages: { pick: string; image: string; use: string; wrongType: string; tooBig: string };
  /** Uploads; answers an error message to show, or null when done. */
  onUse: (file: File, box: CropBox) => Promise<string | null>;
  viewWidth?: number;
}) {
  const { t } = useI18n();
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
    if (!types.includes(file.type)) return setError(messages.wrongType);
    if (file.size > maxBytes) return setError(messages.tooBig);
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => {
      setPhoto({ file, url, width: img.naturalWidth, height: img.naturalHeight });
      setZoom(1);
      setOffX(0.5);
      setOffY(0.5);
    };
    img.onerror = () => setError(messages.wrongType);
    img.src = url;
  };

  // The largest box of this aspect that fits, shrunk by the zoom.
  const fitW = photo ? Math.min(photo.width, photo.height * aspect) : 0;
  const width = fitW / zoom;
  const height = width / aspect;
  const x = photo ? offX * (photo.width - width) : 0;
  const y = photo ? offY * (photo.height - height) : 0;
  const viewHeight = viewWidth / aspect;
  const scale = width ? viewWidth / width : 1;

  const use = async () => {
    if (!photo) return;
    setBusy(true);
    setError(null);
    const problem = await onUse(photo.file, {
      x: Math.floor(x),
      y: Math.floor(y),
      width: Math.floor(width),
      height: Math.floor(height),
    });
    setBusy(false);
    if (problem) setError(problem);
    else setPhoto(null);
  };

  return (
    <div className="avatar-cropper">
      <label className="btn btn--ghost btn--sm avatar-cropper__pick" htmlFor={`${id}-file`}>
        {messages.pick}
      </label>
      <input
        id={`${id}-file`}
        className="sr-only"
        type="file"
        accept={types.join(',')}
        onChange={(e) => choose(e.target.files?.[0])}
      />
      {photo && (
        <div className="avatar-cropper__editor">
          <div className="avatar-cropper__view" style={{ width: viewWidth, height: viewHeight }}>
            <img
              src={photo.url}
              alt={messages.image}
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
                onClick={() => void use()}
              >
                {messages.use}
              </BusyButton>
            </div>
          </div>
        </div>
      )}
      <FormError message={error} />
    </div>
  );
}
