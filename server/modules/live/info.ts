import type { LiveWithHost } from './repo';
import type { LiveInfo } from '../../../common/api/live';

/** A broadcast as the API and the server-rendered pages show it. */
export function liveInfo(l: LiveWithHost & { viewers: number }, replay: LiveInfo['replay'] = []): LiveInfo {
  return {
    vid: l.vid,
    title: l.title,
    cover: l.cover,
    orientation: l.orientation,
    category: l.category,
    status: l.status,
    started_at: l.started_at ? new Date(l.started_at).toISOString() : null,
    ended_at: l.ended_at ? new Date(l.ended_at).toISOString() : null,
    ended_reason: l.end_reason,
    viewers: l.viewers,
    host: { uid: l.uid, short_id: l.short_id, nickname: l.nickname, face: l.face },
    replay,
    kind: l.kind,
  };
}
