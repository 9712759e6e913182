import { useState, type SyntheticEvent } from 'react';
import { ADDRESS_MAX, SIGNATURE_MAX } from '../../common/profile';
import { isName } from '../../common/validation';
import { api, ApiError } from '../lib/api';
import { useAuth } from '../lib/session';
import { Field } from '../ui/fields';
import type { PublicProfile } from '../pages/data';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from '../ui/form';
import { AvatarCropper } from './AvatarCropper';
import { useFeedback } from '../lib/feedback';

/** Editing one's own profile: nickname, signature, sex, birthday, location. */
export function ProfileEditor({
  profile,
  onSaved,
  onPhoto,
  onCancel,
}: {
  profile: PublicProfile;
  onSaved: (p: PublicProfile) => void;
  /** A new photo is saved at once, separately from the form. */
  onPhoto: (p: PublicProfile) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const { user, signedIn } = useAuth();
  const [nickname, setNickname] = useState(profile.nickname);
  const [usign, setUsign] = useState(profile.usign);
  const [sex, setSex] = useState(profile.sex);
  const [birthday, setBirthday] = useState(profile.birthday ?? '');
  const [addr, setAddr] = useState(profile.addr);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nicknameError = nickname.trim() && !isName(nickname.trim()) ? t('profile.nicknameRule') : null;

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (busy || nicknameError || !nickname.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const saved = await api<PublicProfile>('POST', '/api/v1/me/profile', {
        nickname: nickname.trim(),
        usign,
        sex,
        birthday: birthday || null,
        addr,
      });
      if (user) signedIn({ ...user, nickname: saved.nickname });
      toast(t('profile.saved'));
      onSaved(saved);
    } catch (err) {
      const field = err instanceof ApiError ? err.details?.field : undefined;
      setError(
        field === 'birthday'
          ? t('profile.birthdayRule')
          : err instanceof ApiError && err.message
            ? err.message
            : t('error.network'),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="profile__about profile-editor" onSubmit={(e) => void submit(e)} noValidate>
      <h2>{t('profile.editTitle')}</h2>
      <AvatarCropper
        onSaved={(p) => {
          if (user) signedIn({ ...user, face: p.face });
          onPhoto(p);
        }}
      />
      <Field
        label={t('profile.nickname')}
        value={nickname}
        onChange={(e) => setNickname(e.target.value)}
        maxLength={40}
        error={nicknameError}
        autoComplete="nickname"
      />
      <div className="field">
        <label htmlFor="usign">{t('profile.signature')}</label>
        <textarea
          id="usign"
          value={usign}
          maxLength={SIGNATURE_MAX}
          rows={3}
          onChange={(e) => setUsign(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="sex">{t('profile.sex')}</label>
        <select id="sex" value={sex} onChange={(e) => setSex(Number(e.target.value))}>
          <option value={0}>{t('sex.0')}</option>
          <option value={1}>{t('sex.1')}</option>
          <option value={2}>{t('sex.2')}</option>
        </select>
      </div>
      <Field
        label={t('profile.birthday')}
        type="date"
        value={birthday}
        onChange={(e) => setBirthday(e.target.value)}
      />
      <Field
        label={t('profile.location')}
        value={addr}
        maxLength={ADDRESS_MAX}
        onChange={(e) => setAddr(e.target.value)}
      />
      <FormError message={error} />
      <div className="dialog__actions">
        <button type="button" className="btn btn--ghost" onClick={onCancel}>
          {t('common.cancel')}
        </button>
        <BusyButton
          busy={busy}
          disabled={busy || Boolean(nicknameError) || !nickname.trim()}
          className="btn btn--primary"
        >
          {t('profile.save')}
        </BusyButton>
      </div>
    </form>
  );
}
