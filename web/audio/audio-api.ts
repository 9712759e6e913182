// The audio room's calls (server/modules/audio; contract in common/api/audio.ts).
import type { AudioState } from '../../common/api/audio';
import { api } from '../lib/api';

const room = (vid: string) => `/api/v1/audio/${encodeURIComponent(vid)}`;

export const audioApi = {
  open: (title: string) => api<{ vid: string }>('POST', '/api/v1/audio', { title }),
  state: (vid: string) => api<AudioState>('GET', room(vid)),
  hand: (vid: string, up: boolean) => api<unknown>(up ? 'PUT' : 'DELETE', `${room(vid)}/hand`),
  invite: (vid: string, uid: number) => api<unknown>('POST', `${room(vid)}/invites/${uid}`),
  accept: (vid: string, uid: number) => api<unknown>('POST', `${room(vid)}/hands/${uid}/accept`),
  takeSeat: (vid: string) => api<unknown>('POST', `${room(vid)}/seat`),
  leaveSeat: (vid: string) => api<unknown>('DELETE', `${room(vid)}/seat`),
  remove: (vid: string, uid: number) => api<unknown>('DELETE', `${room(vid)}/seats/${uid}`),
  mute: (vid: string, uid: number, muted: boolean) =>
    api<unknown>('PUT', `${room(vid)}/seats/${uid}/mute`, { muted }),
  /** The host ends the room as any live ends. */
  end: (vid: string) => api<unknown>('POST', `/api/v1/live/${encodeURIComponent(vid)}/end`),
  speakUrl: (vid: string) => `${room(vid)}/speak`,
  listenUrl: (vid: string, uid: number) => `${room(vid)}/listen/${uid}`,
};
