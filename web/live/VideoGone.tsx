import { Link } from '../ui/Link';
import { LiveIcon } from '../ui/icons';
import { useI18n } from '../i18n/i18n';
import type { VideoGoneData } from '../pages/data';

/**
 * /v/{videoid} of a broadcast that is not there (spec §4 live room states, §8 messages): 'video
 * does not exist' for an unknown or deleted one (HTTP 404), 'video expired' for an expired one
 * (HTTP 410). A page of the live layout rather than the site's generic 404: the link was a video.
 */
export function VideoGone({ data }: { data: VideoGoneData }) {
  const { t } = useI18n();
  const expired = data.gone === 'expired';
  return (
    <div className="live-page live-page--ended live-page--gone">
      <span className="live-page__gone-icon" aria-hidden="true">
        <LiveIcon />
      </span>
      <h1>{expired ? t('live.expired') : t('error.video_not_found')}</h1>
      <p className="muted">{expired ? t('live.expiredText') : t('live.notFoundText')}</p>
      <Link to="/" className="btn btn--primary">
        {t('live.seeWhoIsLive')}
      </Link>
    </div>
  );
}
