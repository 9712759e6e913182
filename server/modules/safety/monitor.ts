import type { MonitorChat, MonitorLive } from '../../../common/api/safety';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import type { ChatLine } from '../chat';
import { safetyRepo } from './repo';

/** How many broadcasts the monitor shows at most (the most watched, or most reported). */
const MONITOR_MAX = 200;
/** The chat view's latest messages. */
const CHAT_MAX = 60;

/** A broadcast on air, as the live module tells it. */
export interface OnAir {
  vid: string;
  title: string;
  kind: 'video' | 'audio';
  started_at: Date | null;
  viewers: number;
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
}

/**
 * The staff's live monitor (issue 24 item 3): every broadcast on air with its viewers and the
 * open reports about its host, most watched or most reported first, a host found by nickname or
 * short id; a still of each (taken by the media engine when asked, never a video each); and the
 * room's latest chat. Ending and warning are the reports queue's actions (SafetyService.act).
 */
export class LiveMonitor {
  constructor(
    private readonly db: Db,
    private readonly opts: {
      /** Broadcasts on air now, with their viewers (the live module). */
      onAir: (limit: number) => Promise<OnAir[]>;
      /** A still of a broadcast as JPEG, when its media is here. */
      frame: (vid: string) => Promise<Buffer | null>;
      /** A room's latest chat, oldest first, deleted messages left out. */
      chat: (vid: string, limit: number) => Promise<ChatLine[]>;
    },
  ) {}

  async list(sort: 'viewers' | 'reports', q: string | undefined): Promise<MonitorLive[]> {
    const needle = q?.toLowerCase();
    const lives = (await this.opts.onAir(MONITOR_MAX)).filter(
      (l) => !needle || l.short_id === needle || l.nickname.toLowerCase().includes(needle),
    );
    const [reports, here] = await Promise.all([
      safetyRepo.openCounts(
        this.db,
        lives.map((l) => l.uid),
      ),
      safetyRepo.openCountsOfLives(
        this.db,
        lives.map((l) => l.vid),
      ),
    ]);
    const list = lives.map((l) => ({
      vid: l.vid,
      title: l.title,
      kind: l.kind,
      started_at: l.started_at?.toISOString() ?? null,
      viewers: l.viewers,
      reports: reports.get(l.uid) ?? 0,
      live_reports: here.get(l.vid) ?? 0,
      host: { uid: l.uid, short_id: l.short_id, nickname: l.nickname, face: l.face },
    }));
    // Most reported: about this broadcast first, then about its host, then the most watched.
    const key = (l: MonitorLive) =>
      sort === 'reports' ? [l.live_reports, l.reports, l.viewers] : [l.viewers, l.live_reports, l.reports];
    return list.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i++)
        if ((kb[i] ?? 0) !== (ka[i] ?? 0)) return (kb[i] ?? 0) - (ka[i] ?? 0);
      return 0;
    });
  }

  async frame(vid: string): Promise<Buffer> {
    const frame = await this.opts.frame(vid);
    if (!frame) throw new AppError('not_found');
    return frame;
  }

  async chat(vid: string): Promise<MonitorChat['list']> {
    const lines = await this.opts.chat(vid, CHAT_MAX);
    return lines.map((l) => ({ id: l.mid, from: l.from, text: l.text, at: l.at }));
  }
}
