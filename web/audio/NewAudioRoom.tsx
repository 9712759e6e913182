import { useState, type SyntheticEvent } from 'react';
import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { SignInPrompt } from '../ui/SignInPrompt';
import { audioApi } from './audio-api';

/** /audio/new: the host names their room and opens it (their one live), then goes into it. */
export function NewAudioRoom() {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const router = useRouter();
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!user)
    return <SignInPrompt className="audio-new" title={t('audio.newTitle')} text={t('audio.newText')} />;
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { vid } = await audioApi.open(title.trim());
      router.navigate(localizedPath(locale, `/audio/${vid}`));
    } catch (err) {
      setError(errorMessage(t, err));
      setBusy(false);
    }
  };
  return (
    <form className="audio-new" onSubmit={(e) => void submit(e)}>
      <h1>{t('audio.newTitle')}</h1>
      <p className="muted">{t('audio.newText')}</p>
      <Field
        label={t('audio.roomTitle')}
        value={title}
        maxLength={240}
        required
        onChange={(e) => setTitle(e.target.value)}
      />
      <FormError message={error} />
      <BusyButton busy={busy} disabled={busy || title.trim() === ''}>
        {t('audio.start')}
      </BusyButton>
    </form>
  );
}
