import { useEffect, useState } from 'react';
import type { NotificationSettings } from '../../common/api/notifications';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { currentSubscription, disablePush, enablePush, pushPermission, pushSupported } from './push';

/**
 * The bell panel's settings: go-live notifications on or off (everywhere), and push on this
 * device. Permission is asked only when the person turns push on (the browser's prompt follows
 * their click), never as the panel opens.
 */
export function NotifySettings() {
  const { t, locale } = useI18n();
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [device, setDevice] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [s, sub] = await Promise.all([
          api<NotificationSettings>('GET', '/api/v1/notifications/settings'),
          currentSubscription().catch(() => null),
        ]);
        if (!live) return;
        setSettings(s);
        setDevice(sub !== null && s.push);
      } catch {
        if (live) setNote(t('notify.settings.failed'));
      }
    })();
    return () => {
      live = false;
    };
  }, [t]);

  const save = async (change: Partial<Pick<NotificationSettings, 'go_live' | 'push'>>) => {
    setSettings(await api<NotificationSettings>('POST', '/api/v1/notifications/settings', change));
  };

  const togglePush = async (on: boolean) => {
    if (!settings) return;
    setBusy(true);
    setNote(null);
    try {
      if (!on) {
        await disablePush();
        setDevice(false);
      } else if (!settings.vapid_key || !(await enablePush(settings.vapid_key, locale))) {
        setNote(t('notify.settings.pushDenied'));
      } else {
        if (!settings.push) await save({ push: true });
        setDevice(true);
      }
    } catch {
      setNote(t('notify.settings.failed'));
    } finally {
      setBusy(false);
    }
  };

  const supported = pushSupported();
  const denied = supported && pushPermission() === 'denied';
  return (
    <fieldset className="bell__settings" disabled={!settings || busy}>
      <legend className="bell__legend">{t('notify.settings')}</legend>
      <label className="bell__toggle">
        <input
          type="checkbox"
          checked={settings?.go_live ?? true}
          onChange={(e) => {
            const on = e.target.checked;
            setNote(null);
            void save({ go_live: on }).catch(() => setNote(t('notify.settings.failed')));
          }}
        />
        <span>{t('notify.settings.goLive')}</span>
      </label>
      <label className="bell__toggle">
        <input
          type="checkbox"
          checked={device}
          disabled={!supported || (denied && !device)}
          onChange={(e) => void togglePush(e.target.checked)}
        />
        <span>{t('notify.settings.push')}</span>
      </label>
      {!supported && <p className="bell__hint">{t('notify.settings.pushUnsupported')}</p>}
      {supported && denied && !note && <p className="bell__hint">{t('notify.settings.pushDenied')}</p>}
      {note && (
        <p className="bell__hint" role="alert">
          {note}
        </p>
      )}
    </fieldset>
  );
}
