import { useEffect, useState } from 'react';
import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';
import { EyeIcon } from '../ui/icons';
import { Link } from '../ui/Link';
import { fetchVideos, type ShortVideo } from './videos-api';

/**
 * A person's short videos on their page, newest first, each a poster leading to the video in the
 * feed; nothing at all while they have none.
 */
export function UserVideos({ uid }: { uid: number }) {
  const { t, locale } = useI18n();
  const [videos, setVideos] = useState<ShortVideo[]>([]);
  useEffect(() => {
    let live = true;
    fetchVideos({ uid })
      .then((page) => {
        if (live) setVideos(page.list);
      })
      // Their videos are extra to the page: without them it still says who they are.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [uid]);
  if (videos.length === 0) return null;
  return (
    <section className="section" aria-labelledby="shorts-title">
      <h2 id="shorts-title">{t('videos.profileTitle')}</h2>
      <ul className="shorts-grid">
        {videos.map((v) => (
          <li key={v.id}>
            <Link to={`/videos/${v.id}`} className="shorts-grid__card">
              {v.poster ? (
                <img src={v.poster} alt="" loading="lazy" />
              ) : (
                <span className="shorts-grid__pending">
                  {v.status === 'failed' ? t('videos.failedShort') : t('videos.processingShort')}
                </span>
              )}
              <span className="shorts-grid__title" dir="auto">
                {v.title || t('videos.untitled')}
              </span>
              <span className="shorts-grid__views">
                <EyeIcon />
                <span aria-hidden="true">{formatCount(v.views, locale)}</span>
                <span className="sr-only">
                  {t('videos.views', { count: v.views, formatted: formatCount(v.views, locale) })}
                </span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
