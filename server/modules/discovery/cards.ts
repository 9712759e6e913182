import type { ExploreCard } from '../../../common/api/explore';
import type { RankRow } from './repo';

/** A broadcast on air as explore and search show it. */
export function card(r: RankRow): ExploreCard {
  return {
    vid: r.vid,
    title: r.title,
    cover: r.cover,
    orientation: r.orientation,
    kind: r.kind,
    category: r.category,
    viewers: r.viewers,
    started_at: new Date(r.started_at).toISOString(),
    host: { uid: r.uid, short_id: r.short_id, nickname: r.nickname, face: r.face, country: r.country },
    marks: { official: r.official, star: r.star, featured: r.featured, fashion: r.fashion },
    newcomer: r.newcomer,
  };
}
