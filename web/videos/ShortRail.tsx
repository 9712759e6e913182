import { useState } from 'react';
import { formatCount } from '../../common/format';
import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';
import { useAuth } from '../lib/session';
import { ShareButton } from '../live/ShareButton';
import { CommentIcon, EyeIcon, HeartIcon, StarIcon, TrashIcon } from '../ui/icons';
import { Link } from '../ui/Link';
import { deleteVideo, setLike, setWonderful, videoErrorText, type ShortVideo } from './videos-api';

/**
 * The column beside a video: its author (to their page), like, comments, share and views; for
 * staff the wonderful mark, and for its author and staff, delete.
 */
export function ShortRail({
  video: v,
  onChange,
  onRemoved,
  onComments,
}: {
  video: ShortVideo;
  onChange: (id: string, change: Partial<ShortVideo>) => void;
  onRemoved: (id: string) => void;
  onComments: () => void;
}) {
  const { t, locale } = useI18n();
  const { user, requireLogin } = useAuth();
  const { toast, confirm } = useFeedback();
  const [busy, setBusy] = useState(false);
  const staff = user?.staff === true;
  const mine = user?.uid === v.author.uid;
  const count = (n: number) => formatCount(n, locale);
  const shareUrl =
    typeof window === 'undefined'
      ? ''
      : `${window.location.origin}${localizedPath(locale, `/videos/${v.id}`)}`;

  const like = () => {
    if (!user) {
      requireLogin(t('auth.pleaseSignIn'));
      return;
    }
    if (busy) return;
    setBusy(true);
    setLike(v.id, !v.liked)
      .then((r) => onChange(v.id, r))
      .catch((err: unknown) => toast(videoErrorText(t, err)))
      .finally(() => setBusy(false));
  };

  const mark = () => {
    setWonderful(v.id, !v.wonderful)
      .then(() => {
        onChange(v.id, { wonderful: !v.wonderful });
        toast(t(v.wonderful ? 'videos.unmarked' : 'videos.marked'));
      })
      .catch((err: unknown) => toast(videoErrorText(t, err)));
  };

  const remove = async () => {
    if (!(await confirm(t('videos.deleteConfirm')))) return;
    try {
      await deleteVideo(v.id);
      onRemoved(v.id);
      toast(t('videos.deleted'));
    } catch (err) {
      toast(videoErrorText(t, err));
    }
  };

  return (
    <div className="short__rail">
      <Link
        to={`/u/${v.author.short_id}`}
        className="short__avatar"
        aria-label={t('videos.authorPage', { name: v.author.nickname })}
      >
        {v.author.face ? (
          <img src={v.author.face} alt="" width={44} height={44} />
        ) : (
          <span aria-hidden="true">{v.author.nickname.slice(0, 1)}</span>
        )}
      </Link>
      <span className="short__action">
        <button
          type="button"
          className={v.liked ? 'round-button short__like short__like--on' : 'round-button short__like'}
          aria-pressed={v.liked}
          aria-label={t('videos.like')}
          title={t('videos.like')}
          onClick={like}
        >
          <HeartIcon filled={v.liked} />
        </button>
        <span className="short__count" data-count="likes">
          {count(v.likes)}
        </span>
      </span>
      <span className="short__action">
        <button
          type="button"
          className="round-button"
          aria-label={t('videos.comments')}
          title={t('videos.comments')}
          aria-haspopup="dialog"
          onClick={onComments}
        >
          <CommentIcon />
        </button>
        <span className="short__count" data-count="comments">
          {count(v.comments)}
        </span>
      </span>
      <span className="short__action">
        <ShareButton url={shareUrl} title={v.title} />
      </span>
      <span className="short__action short__action--views">
        <EyeIcon />
        <span className="short__count" aria-hidden="true">
          {count(v.views)}
        </span>
        <span className="sr-only">{t('videos.views', { count: v.views, formatted: count(v.views) })}</span>
      </span>
      {staff && (
        <button
          type="button"
          className="round-button"
          aria-pressed={v.wonderful}
          aria-label={t('videos.markWonderful')}
          title={t('videos.markWonderful')}
          onClick={mark}
        >
          <StarIcon filled={v.wonderful} />
        </button>
      )}
      {(mine || staff) && (
        <button
          type="button"
          className="round-button"
          aria-label={t('videos.delete')}
          title={t('videos.delete')}
          onClick={() => void remove()}
        >
          <TrashIcon />
        </button>
      )}
    </div>
  );
}
