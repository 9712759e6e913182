import { useState } from 'react';
import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { Field } from '../ui/fields';
import { BusyButton, FormError, useSubmit } from '../ui/form';
import { SignInPrompt } from '../ui/SignInPrompt';
import { audioApi } from './audio-api';

/** /audio/new: the host names their room and opens it (their one live), then goes into it. */
export function NewAudioRoom() {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const router = useRouter();
  const [title, setTitle] = useState('');
  const { busy, error, onSubmit } = useSubmit();
  if (!user)
    return <SignInPrompt className="audio-new" title={t('audio.newTitle')} text={t('audio.newText')} />;
  const submit = onSubmit(async () => {
    const { vid } = await audioApi.open(title.trim());
    router.navigate(localizedPath(locale, `/audio/${vid}`));
  });
  return (
    <form className="audio-new" onSubmit={submit}>
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
