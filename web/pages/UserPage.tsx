import { useState } from 'react';
import { formatBirthday } from '../../common/format';
import type { FollowListKind } from '../../common/social';
import type { PageProps } from '../lib/page';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { NoContent } from '../ui/feedback';
import { FollowCounts } from '../ui/FollowCounts';
import { PkRecord } from '../live/pk/PkRecord';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { ProfileEditor } from '../profile/ProfileEditor';
import { useI18n } from '../i18n/i18n';
import { BroadcastCard } from '../live/BroadcastCard';
import { FollowButton } from '../live/FollowButton';
import { MuteToggle } from '../notify/MuteToggle';
import { FollowList } from '../live/FollowList';
import { FollowProvider, type FollowState } from '../live/follow-store';
import { ClipDialog } from '../videos/ClipDialog';
import { UserVideos } from '../videos/UserVideos';
import type { PublicProfile, UserPageData } from './data';

/**
 * The personal page (spec §2): profile, LIVE while they broadcast, counts that open the lists of
 * followers and following, and — for its owner — editing. Follow buttons of the page (the
 * profile's, the lists') share one state per person.
 */
export default function UserPage(props: PageProps) {
  return (
    <FollowProvider>
      <Personal {...props} />
    </FollowProvider>
  );
}

function Personal({ data }: PageProps) {
  const [profile, setProfile] = useState<PublicProfile>((data as UserPageData).profile);
  const [editing, setEditing] = useState(false);
  const [list, setList] = useState<FollowListKind | null>(null);
  /** The replay a highlight is being cut from (its host only). */
  const [clipping, setClipping] = useState<UserPageData['replays'][number] | null>(null);
  const { replays, live } = data as UserPageData;
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const mine = user?.uid === profile.uid;
  const facts: [string, string][] = [];
  if (profile.sex) facts.push([t('profile.sex'), t(profile.sex === 1 ? 'sex.1' : 'sex.2')]);
  // The birthday as a day of the year (as the live room's card shows it); the age on its own.
  if (profile.birthday) facts.push([t('profile.birthday'), formatBirthday(profile.birthday, locale)]);
  if (profile.age !== null) facts.push([t('profile.ageLabel'), t('profile.age', { age: profile.age })]);
  if (profile.zodiac) facts.push([t('profile.zodiac'), t(`zodiac.${profile.zodiac}`)]);
  if (profile.addr) facts.push([t('profile.location'), profile.addr]);
  // Following someone from one's own lists changes one's own following count.
  const followChanged = () => {
    if (!mine) return;
    api<FollowState>('GET', `/api/v1/follows/${profile.uid}`)
      .then((s) =>
        setProfile((p) => ({ ...p, follower_count: s.follower_count, following_count: s.following_count })),
      )
      .catch(() => undefined);
  };

  const avatar = (
    <span className={live ? 'profile__avatar profile__avatar--live' : 'profile__avatar'} aria-hidden="true">
      {profile.face ? (
        <img src={profile.face} alt="" width={96} height={96} />
      ) : (
        profile.nickname.slice(0, 1).toUpperCase()
      )}
    </span>
  );

  return (
    <div className="profile">
      <section className="profile__card" aria-labelledby="profile-name">
        {live ? (
          <Link to={`/v/${live.vid}`} className="profile__avatar-link" tabIndex={-1} aria-hidden="true">
            {avatar}
            <span className="live-badge profile__live-badge">{t('live.badge')}</span>
          </Link>
        ) : (
          avatar
        )}
        <div className="profile__main">
          <h1 id="profile-name" className="profile__name">
            <bdi>{profile.nickname}</bdi>
          </h1>
          <p className="muted small">
            {t('profile.id', { id: profile.short_id })} · {t('profile.level', { level: profile.level })}
          </p>
          <FollowCounts
            followers={profile.follower_count}
            following={profile.following_count}
            onOpen={setList}
          />
          <PkRecord uid={profile.uid} />
        </div>
        {live && (
          <Link to={`/v/${live.vid}`} className="btn btn--primary profile__watch">
            <span className="live-badge">{t('live.badge')}</span> {t('profile.watchLive')}
            <span className="profile__watch-title" dir="auto">
              {live.title}
            </span>
          </Link>
        )}
        {!mine && (
          <FollowButton
            uid={profile.uid}
            onChange={(f) => setProfile({ ...profile, follower_count: f.follower_count })}
          />
        )}
        {!mine && <MuteToggle uid={profile.uid} name={profile.nickname} />}
        {mine && !editing && (
          <button
            type="button"
            className="btn btn--ghost btn--sm profile__edit"
            onClick={() => setEditing(true)}
          >
            {t('profile.edit')}
          </button>
        )}
      </section>

      {editing ? (
        <ProfileEditor
          profile={profile}
          onSaved={(p) => {
            setProfile(p);
            setEditing(false);
          }}
          onPhoto={setProfile}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <section className="profile__about" aria-labelledby="about-title">
          <h2 id="about-title">{t('profile.aboutMe')}</h2>
          {/* People write in their own language: <bdi> keeps their text's direction inside ours. */}
          <p className={profile.usign ? undefined : 'muted'}>
            {profile.usign ? <bdi>{profile.usign}</bdi> : t('profile.noSignature')}
          </p>
          {facts.length > 0 && (
            <dl className="profile__facts">
              {facts.map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>
                    <bdi>{v}</bdi>
                  </dd>
                </div>
              ))}
            </dl>
          )}
        </section>
      )}

      {list && (
        <FollowList
          uid={profile.uid}
          name={profile.nickname}
          kind={list}
          onClose={() => setList(null)}
          onFollowChange={followChanged}
        />
      )}

      <UserVideos uid={profile.uid} />

      <section className="section" aria-labelledby="lives-title">
        <h2 id="lives-title">{t('profile.lives')}</h2>
        {replays.length === 0 ? (
          <NoContent>
            <p className="muted">{t('profile.noReplays')}</p>
          </NoContent>
        ) : (
          <ul className="live-grid">
            {replays.map((r) => (
              <li key={r.vid}>
                <BroadcastCard
                  vid={r.vid}
                  title={r.title}
                  cover={r.cover}
                  hostName={profile.nickname}
                  overlay={<span className="badge live-card__badge">{t('live.replay')}</span>}
                  subtitle={r.started_at && <TimeAgo iso={r.started_at} />}
                />
                {mine && (
                  <button
                    type="button"
                    className="btn btn--ghost btn--sm profile__clip"
                    onClick={() => setClipping(r)}
                  >
                    {t('videos.clip.make')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      {clipping && <ClipDialog vid={clipping.vid} title={clipping.title} onClose={() => setClipping(null)} />}
    </div>
  );
}
