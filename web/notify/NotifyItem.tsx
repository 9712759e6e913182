import { isolate } from '../lib/bidi';
import { useState } from 'react';
import type { MuteAnswer, NotificationItem } from '../../common/api/notifications';
import { formatDate, formatRelativeTime } from '../../common/format';
import { htmlLang, type Locale } from '../../common/locales';
import { useI18n, type I18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useFeedback } from '../lib/feedback';
import { Link } from '../ui/Link';

/** "When": from now (a notification may have arrived after the page was rendered). */
function Ago({ iso }: { iso: string }) {
  const { locale } = useI18n();
  const date = new Date(iso);
  const now = new Date();
  // Under a minute: "now" (a count of seconds says nothing more, and the clocks may differ).
  const text =
    now.getTime() - date.getTime() < 60_000
      ? new Intl.RelativeTimeFormat(htmlLang(locale), { numeric: 'auto' }).format(0, 'second')
      : formatRelativeTime(date, now, locale);
  return (
    <time className="bell__time" dateTime={iso} title={formatDate(date, locale)}>
      {text}
    </time>
  );
}

/**
 * What an item says and where it leads: a go-live to the live; a festival slot that started (the
 * reader follows the programme) to the programme's page, named in the reader's language.
 */
function itemLine(t: I18n['t'], locale: Locale, item: NotificationItem): { text: string; to: string } {
  const name = isolate(item.host.nickname);
  if (item.kind === 'programme' && item.programme) {
    const names = item.programme.names;
    const programme = isolate(names[locale] ?? names.en ?? Object.values(names)[0] ?? '');
    return {
      text: item.title
        ? t('notify.programme', { programme, name, title: isolate(item.title) })
        : t('notify.programmeUntitled', { programme, name }),
      to: `/festival/${item.programme.id}`,
    };
  }
  return { text: t('notify.live', { name, title: isolate(item.title) }), to: `/v/${item.vid}` };
}

/** One notification: a link (marked read as it opens) and a menu to mute its host. */
export function NotifyItem({ item, onOpen }: { item: NotificationItem; onOpen: () => void }) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const [menu, setMenu] = useState(false);
  const [muted, setMuted] = useState(false);
  const name = item.host.nickname;
  const line = itemLine(t, locale, item);

  const toggleMute = async () => {
    setMenu(false);
    try {
      const r = await api<MuteAnswer>(
        muted ? 'DELETE' : 'POST',
        `/api/v1/notifications/mutes/${item.host.uid}`,
      );
      setMuted(r.muted);
      toast(t(r.muted ? 'notify.muted' : 'notify.unmuted', { name }));
    } catch {
      toast(t('notify.failed'));
    }
  };

  return (
    <li className={item.read ? 'bell__item' : 'bell__item bell__item--unread'}>
      <Link to={line.to} className="bell__link" onClick={onOpen}>
        <span className="bell__avatar" aria-hidden="true">
          {item.host.face ? (
            <img src={item.host.face} alt="" width={40} height={40} loading="lazy" />
          ) : (
            name.slice(0, 1).toUpperCase()
          )}
        </span>
        <span className="bell__text">
          <span className="bell__line">{line.text}</span>
          <Ago iso={item.created_at} />
        </span>
        {!item.read && (
          <span className="bell__dot">
            <span className="sr-only">{t('notify.unread')}</span>
          </span>
        )}
      </Link>
      <div className="bell__menu">
        <button
          type="button"
          className="bell__menu-button"
          aria-expanded={menu}
          aria-label={t('notify.itemMenu', { name })}
          onClick={() => setMenu(!menu)}
          onKeyDown={(e) => {
            // Escape closes this menu first, not the whole panel.
            if (e.key === 'Escape' && menu) {
              e.stopPropagation();
              e.nativeEvent.stopImmediatePropagation();
              setMenu(false);
            }
          }}
        >
          <span aria-hidden="true">⋯</span>
        </button>
        {menu && (
          <button type="button" className="bell__menu-item" onClick={() => void toggleMute()}>
            {t(muted ? 'notify.unmute' : 'notify.mute', { name })}
          </button>
        )}
      </div>
    </li>
  );
}
