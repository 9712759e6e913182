import { SHORT_TABS, type ShortTab } from '../../common/videos';
import { useI18n } from '../i18n/i18n';
import { BackButton } from '../ui/BackButton';
import { SoundIcon, UploadIcon } from '../ui/icons';
import { Link } from '../ui/Link';
import { videosHref } from './VideoFeed';

/**
 * Over the feed: back (phones, where the site's header gives way to the feed), the lists, the
 * sound and the upload. The lists are links: a list can be shared and comes back with Back.
 */
export function FeedBar({
  tab,
  muted,
  onMuted,
  onUpload,
}: {
  tab: ShortTab;
  muted: boolean;
  onMuted: (muted: boolean) => void;
  onUpload: () => void;
}) {
  const { t } = useI18n();
  return (
    <div className="shorts__bar">
      <BackButton className="shorts__back" />
      <nav className="shorts__tabs" aria-label={t('videos.tabs')}>
        {SHORT_TABS.map((name) => (
          <Link
            key={name}
            to={videosHref(name)}
            className="shorts__tab"
            aria-current={name === tab ? 'page' : undefined}
          >
            {t(`videos.tab.${name}`)}
          </Link>
        ))}
      </nav>
      <button
        type="button"
        className="round-button"
        aria-pressed={!muted}
        aria-label={t('videos.sound')}
        title={muted ? t('videos.soundOn') : t('videos.soundOff')}
        onClick={() => onMuted(!muted)}
      >
        <SoundIcon off={muted} />
      </button>
      <button
        type="button"
        className="round-button shorts__upload"
        aria-label={t('videos.upload')}
        title={t('videos.upload')}
        onClick={onUpload}
      >
        <UploadIcon />
      </button>
    </div>
  );
}
