import { useState } from 'react';
import type { PageProps } from '../app/pages';
import { useAuth } from '../auth/AuthContext';
import { NoContent } from '../components/feedback';
import { FollowCounts } from '../components/FollowCounts';
import { TimeAgo } from '../components/TimeAgo';
import { ProfileEditor } from '../components/ProfileEditor';
import { useI18n } from '../i18n/i18n';
import { BroadcastCard } from '../live/BroadcastCard';
import { FollowButton } from '../live/FollowButton';
import type { PublicProfile, UserPageData } from './data';

/** The personal page (spec §2): profile, counts, and — for its owner — editing. */
export default function UserPage({ data }: PageProps) {
  const [profile, setProfile] = useState<PublicProfile>((data as UserPageData).profile);
  const [editing, setEditing] = useState(false);
  const { replays } = data as UserPageData;
  const { t } = useI18n();
  const { user } = useAuth();
  const mine = user?.uid === profile.uid;
  const facts: [string, string][] = [];
  if (profile.sex) facts.push([t('profile.sex'), t(profile.sex === 1 ? 'sex.1' : 'sex.2')]);
  if (profile.age !== null) facts.push([t('profile.birthday'), t('profile.age', { age: profile.age })]);
  if (profile.zodiac) facts.push([t('profile.zodiac'), t(`zodiac.${profile.zodiac}`)]);
  if (profile.addr) facts.push([t('profile.location'), profile.addr]);

  return (
    <div className="profile">
      <section className="profile__card" aria-labelledby="profile-name">
        <span className="profile__avatar" aria-hidden="true">
          {profile.face ? (
            <img src={profile.face} alt="" width={96} height={96} />
          ) : (
            profile.nickname.slice(0, 1).toUpperCase()
          )}
        </span>
        <div className="profile__main">
          <h1 id="profile-name" className="profile__name">
            <bdi>{profile.nickname}</bdi>
          </h1>
          <p className="muted small">
            {t('profile.id', { id: profile.short_id })} · {t('profile.level', { level: profile.level })}
          </p>
          <FollowCounts followers={profile.follower_count} following={profile.following_count} />
        </div>
        {!mine && (
          <FollowButton
            uid={profile.uid}
            onChange={(f) => setProfile({ ...profile, follower_count: f.follower_count })}
          />
        )}
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
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
