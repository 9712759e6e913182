import { api, ApiError } from '../lib/api';
import type { PublicProfile } from '../pages/data';
import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';
import { ImageCropper } from '../ui/ImageCropper';

const MAX_BYTES = 5 * 1024 * 1024;
const TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

/** Choose a photo and the square to keep; the server crops, resizes and stores the avatar. */
export function AvatarCropper({ onSaved }: { onSaved: (p: PublicProfile) => void }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  return (
    <ImageCropper
      aspect={1}
      types={TYPES}
      maxBytes={MAX_BYTES}
      messages={{
        pick: t('profile.changePhoto'),
        image: t('profile.photo'),
        use: t('profile.usePhoto'),
        wrongType: t('profile.photoType'),
        tooBig: t('profile.photoTooBig'),
      }}
      onUse={async (file, box) => {
        try {
          const q = `x=${box.x}&y=${box.y}&size=${box.width}`;
          onSaved(await api<PublicProfile>('POST', `/api/v1/me/avatar?${q}`, file));
          toast(t('profile.photoSaved'));
          return null;
        } catch (err) {
          return err instanceof ApiError && err.message ? err.message : t('error.network');
        }
      }}
    />
  );
}
