import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RoomEvent } from '../../common/realtime';
import { ApiError } from '../lib/api';
import {
  FALLBACK_POLL_MS,
  LivePlayer,
  REPLAY_POLL_MS,
  RETRY_MS,
  STALL_REPLAY_MS,
  FIRST_MEDIA_MS,
  CONNECT_FALLBACK_MS,
  STATUS_POLL_MS,
  HlsUnavailable,
  type PlayerDeps,
} from './player';
import type { ConnectionState, RoomHandlers } from './realtime';
import { MediaHttpError, type Session } from './webrtc';

interface Live {
  status: 'created' | 'live' | 'ended' | 'expired';
  replay: { url: string }[];
}

/** A peer connection that the test can fail. */
class FakePc extends EventTarget {
  connectionState: RTCPeerConnectionState = 'connected';
  fail(): void {
    this.connectionState = 'failed';
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}

function fakeSession() {
  const pc = new FakePc();
  const stop = vi.fn(async () => {});
  const close = vi.fn();
  const session: Session = { pc: pc as unknown as RTCPeerConnection, location: '/s', stop, close };
  return { pc, session, stop, close };
}

function need<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('not there yet');
  return value;
}

/** A player with fake media, status and room; each WHEP attempt takes the next answer queued. */
function setup(
  initial: Live = { status: 'live', replay: [] },
  opts: { webrtc?: boolean; answered?: boolean; noHls?: boolean; slowHls?: boolean } = {},
) {
  const plays: Array<() => Promise<Session>> = [];
  const sessions: ReturnType<typeof fakeSession>[] = [];
  let flow: ((flowing: boolean) => void) | null = null;
  let handlers: RoomHandlers | null = null;
  let roomState: ((s: ConnectionState) => void) | null = null;
  const left = vi.fn();
  const status = vi.fn(async (): Promise<Live> => ({ status: 'live', replay: [] }));
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the arguments are read from play.mock.calls
  const play = vi.fn(async (_onStream?: unknown, _opts?: { noHls: boolean }) => {
    const next = plays.shift();
    if (next) return next();
    const s = fakeSession();
    sessions.push(s);
    return s.session;
  });
  const deps: PlayerDeps<Live> = {
    play,
    watchFlow: (_pc, onChange) => {
      flow = onChange;
      return () => (flow = null);
    },
    status,
    room: {
      onState: (l) => {
        roomState = l;
        l('connecting');
        return () => (roomState = null);
      },
      join: (_room, h) => {
        handlers = h;
        return left;
      },
    },
    onStream: () => undefined,
    playHls: async (onFatal) => {
      hlsStarts++;
      if (opts.noHls) throw new HlsUnavailable('none');
      if (opts.slowHls) await new Promise((r) => setTimeout(r, 500));
      const h = { stop: vi.fn(), fatal: onFatal };
      hls.push(h);
      return h;
    },
    ...(opts.webrtc === false ? { webrtc: () => false } : {}),
    ...(opts.answered !== undefined ? { unanswered: async () => !opts.answered } : {}),
  };
  const hls: { stop: () => void; fatal: () => void }[] = [];
  let hlsStarts = 0;
  const player = new LivePlayer('v1', initial, deps);
  const fail = (err: Error) => plays.push(() => Promise.reject(err));
  const host = (state: Extract<RoomEvent, { t: 'host' }>['state']) =>
    need(handlers).event({ t: 'host', state } as RoomEvent);
  return {
    player,
    play,
    status,
    left,
    fail,
    host,
    flow: (flowing: boolean) => need(flow)(flowing),
    roomState: (s: ConnectionState) => need(roomState)(s),
    session: (i: number) => need(sessions[i]),
    view: () => player.state.view,
    hls,
    hlsStarts: () => hlsStarts,
    /** The next WHEP attempt is answered, but its connection never comes up. */
    neverConnects: () =>
      plays.push(async () => {
        const s = fakeSession();
        s.pc.connectionState = 'connecting';
        sessions.push(s);
        return s.session;
      }),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('LivePlayer', () => {
  it('connecting → playing when the video plays', async () => {
    const t = setup();
    t.player.start();
    expect(t.view()).toBe('connecting');
    await vi.advanceTimersByTimeAsync(0);
    expect(t.play).toHaveBeenCalledTimes(1);
    t.player.playing();
    expect(t.view()).toBe('playing');
    t.player.stop();
    // Left while it played: the session is hung up, and the room left.
    expect(t.session(0).stop).toHaveBeenCalled();
    expect(t.left).toHaveBeenCalled();
  });

  it('connecting → waiting while the broadcaster has not started (404), and tries again', async () => {
    const t = setup();
    t.fail(new MediaHttpError(404, null, ''));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.view()).toBe('waiting');
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(t.status).toHaveBeenCalled();
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.playing();
    expect(t.view()).toBe('playing');
    t.player.stop();
  });

  it('connecting → reconnecting when the media server cannot be reached', async () => {
    const t = setup();
    t.fail(new Error('network'));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.view()).toBe('reconnecting');
    t.player.stop();
  });

  it('playing → reconnecting when the picture stalls, → playing when it flows again', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.flow(false);
    expect(t.view()).toBe('reconnecting');
    t.flow(true);
    expect(t.view()).toBe('playing');
    t.player.stop();
  });

  it('a picture stalled while the broadcaster is on air: the session is replaced at once', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.flow(false);
    await vi.advanceTimersByTimeAsync(STALL_REPLAY_MS - 10);
    expect(t.play).toHaveBeenCalledTimes(1);
    // Its media node is gone: hung up, and a new session asked for without waiting to retry.
    await vi.advanceTimersByTimeAsync(10);
    expect(t.session(0).stop).toHaveBeenCalled();
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.playing();
    expect(t.view()).toBe('playing');
    t.player.stop();
  });

  it('a session whose media never starts is replaced; one whose media started is kept', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(FIRST_MEDIA_MS - 10);
    expect(t.play).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(t.session(0).stop).toHaveBeenCalled();
    expect(t.play).toHaveBeenCalledTimes(2);
    // The second one's media flows: it stays.
    t.flow(true);
    await vi.advanceTimersByTimeAsync(FIRST_MEDIA_MS * 2);
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.stop();
  });

  it('a picture that stalls and flows again, or stalls while the broadcaster dropped, keeps its session', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.flow(false);
    t.flow(true);
    await vi.advanceTimersByTimeAsync(STALL_REPLAY_MS * 3);
    expect(t.play).toHaveBeenCalledTimes(1);
    t.host('interrupted');
    t.flow(false);
    await vi.advanceTimersByTimeAsync(STALL_REPLAY_MS * 3);
    expect(t.play).toHaveBeenCalledTimes(1);
    expect(t.session(0).stop).not.toHaveBeenCalled();
    t.player.stop();
  });

  it('playing → reconnecting when the connection fails: hangs up and connects anew', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.session(0).pc.fail();
    expect(t.view()).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(0);
    // Still live: this session is hung up on the server.
    expect(t.session(0).stop).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.stop();
  });

  it('playing → interrupted when the room says the broadcaster dropped, → playing when back', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.host('interrupted');
    expect(t.view()).toBe('interrupted');
    // A stall while they are away is theirs, not ours.
    t.flow(false);
    expect(t.view()).toBe('interrupted');
    t.host('live');
    expect(t.view()).toBe('playing');
    expect(t.play).toHaveBeenCalledTimes(1);
    t.player.stop();
  });

  it('the broadcaster back on a new connection: connects at once, not at the next retry', async () => {
    const t = setup();
    t.fail(new MediaHttpError(404, null, ''));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.host('live');
    await vi.advanceTimersByTimeAsync(0);
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.stop();
  });

  it('→ ended when the room says so: the session is closed, not hung up, and the replay awaited', async () => {
    const t = setup();
    const seen = vi.fn();
    t.player.subscribe(seen);
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.status.mockResolvedValue({ status: 'ended', replay: [] });
    t.host('ended');
    expect(t.view()).toBe('ended');
    expect(t.player.state.live.status).toBe('ended');
    expect(t.session(0).close).toHaveBeenCalled();
    expect(t.session(0).stop).not.toHaveBeenCalled();
    expect(t.left).toHaveBeenCalled();
    expect(seen).toHaveBeenCalled();
    // The replay is looked for until it is there.
    t.status.mockClear();
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(t.status).toHaveBeenCalledTimes(1);
    t.status.mockResolvedValue({ status: 'ended', replay: [{ url: '/r.mp4' }] });
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS * 3);
    expect(t.status).toHaveBeenCalledTimes(2);
    // Ended is final.
    t.player.playing();
    expect(t.view()).toBe('ended');
    t.player.stop();
  });

  it('→ ended when the status says so (a poll), or the broadcast is gone (404)', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.status.mockResolvedValue({ status: 'ended', replay: [{ url: '/r.mp4' }] });
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS);
    expect(t.view()).toBe('ended');
    t.player.stop();

    const u = setup();
    u.player.start();
    await vi.advanceTimersByTimeAsync(0);
    u.status.mockRejectedValue(new ApiError(404, 'network', ''));
    await u.player.refresh();
    expect(u.view()).toBe('ended');
    u.player.stop();
  });

  it('→ ended when the media server says the broadcast is over (410)', async () => {
    const t = setup();
    t.fail(new MediaHttpError(410, null, ''));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.view()).toBe('ended');
    await vi.advanceTimersByTimeAsync(RETRY_MS * 4);
    expect(t.play).toHaveBeenCalledTimes(1);
    t.player.stop();
  });

  it('→ blocked when the media server refuses the viewer, and nothing more is tried', async () => {
    const t = setup();
    t.fail(new MediaHttpError(403, 'blocked_permanently', ''));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.view()).toBe('blocked');
    expect(t.left).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS * 2);
    expect(t.play).toHaveBeenCalledTimes(1);
    expect(t.status).not.toHaveBeenCalled();
    t.player.stop();
  });

  it('playing → blocked when the room says so: the media, ended by the server, is closed', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.playing();
    t.player.blocked();
    expect(t.view()).toBe('blocked');
    expect(t.session(0).close).toHaveBeenCalled();
    t.player.playing();
    expect(t.view()).toBe('blocked');
    t.player.stop();
  });

  it('a broadcast that had ended when the page opened: ended, no media, the replay awaited', async () => {
    const t = setup({ status: 'ended', replay: [] });
    t.player.start();
    expect(t.view()).toBe('ended');
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(t.play).not.toHaveBeenCalled();
    expect(t.status).toHaveBeenCalledTimes(1);
    t.player.stop();
  });

  it('signing in or out starts the media again', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    t.player.setSession('csrf1');
    expect(t.session(0).stop).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.play).toHaveBeenCalledTimes(2);
    t.player.stop();
  });

  it('reads the status slowly while the room connection is open, faster while it is not', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS);
    expect(t.status).toHaveBeenCalledTimes(1);
    t.roomState('open');
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS * 2);
    expect(t.status).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(FALLBACK_POLL_MS - STATUS_POLL_MS * 2);
    expect(t.status).toHaveBeenCalledTimes(2);
    t.player.stop();
  });
  it('every media node full (media_full): plays LL-HLS instead, and says so', async () => {
    const t = setup();
    t.fail(new MediaHttpError(503, 'media_full', 'full'));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.player.state.transport).toBe('hls');
    expect(t.hls).toHaveLength(1);
    t.player.playing();
    expect(t.view()).toBe('playing');
    // WebRTC is not tried again while the page is open.
    await vi.advanceTimersByTimeAsync(RETRY_MS * 4);
    expect(t.play).toHaveBeenCalledTimes(1);
    t.player.stop();
    expect(t.hls[0]?.stop).toHaveBeenCalled();
  });

  it('a connection that never comes up (UDP blocked): LL-HLS after CONNECT_FALLBACK_MS', async () => {
    const t = setup();
    t.neverConnects();
    t.player.start();
    await vi.advanceTimersByTimeAsync(CONNECT_FALLBACK_MS - 100);
    expect(t.player.state.transport).toBe('webrtc');
    await vi.advanceTimersByTimeAsync(200);
    expect(t.player.state.transport).toBe('hls');
    // The WebRTC session is hung up.
    expect(t.session(0).stop).toHaveBeenCalled();
    expect(t.hls).toHaveLength(1);
  });

  it('a connection that comes up in time stays on WebRTC', async () => {
    const t = setup();
    t.player.start();
    await vi.advanceTimersByTimeAsync(CONNECT_FALLBACK_MS * 2);
    expect(t.player.state.transport).toBe('webrtc');
    expect(t.hls).toHaveLength(0);
  });

  it('LL-HLS that stops for good starts again while the broadcast is on, not after it ended', async () => {
    const t = setup({ status: 'live', replay: [] }, { webrtc: false });
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    // No WebRTC in this browser: LL-HLS from the start.
    expect(t.play).not.toHaveBeenCalled();
    expect(t.hls).toHaveLength(1);
    t.player.playing();
    need(t.hls[0]).fatal();
    expect(t.view()).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(t.hls).toHaveLength(2);
    t.status.mockResolvedValue({ status: 'ended', replay: [] });
    need(t.hls[1]).fatal();
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(t.view()).toBe('ended');
    expect(t.hls).toHaveLength(2);
  });
  it('a connection whose checks are answered but slow to come up stays on WebRTC', async () => {
    const t = setup({ status: 'live', replay: [] }, { answered: true });
    t.neverConnects();
    t.player.start();
    await vi.advanceTimersByTimeAsync(CONNECT_FALLBACK_MS + 100);
    expect(t.player.state.transport).toBe('webrtc');
    expect(t.hls).toHaveLength(0);
  });

  it('a broadcast without LL-HLS: back to WebRTC, and not sent to LL-HLS again', async () => {
    const t = setup({ status: 'live', replay: [] }, { noHls: true });
    t.fail(new MediaHttpError(503, 'media_full', 'full'));
    t.fail(new MediaHttpError(503, 'media_full', 'full'));
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    // Tried LL-HLS, found none: WebRTC again at once, saying so (the server then does not refuse
    // it for capacity; this fake does, and the player retries as usual).
    expect(t.player.state.transport).toBe('webrtc');
    expect(t.play).toHaveBeenCalledTimes(2);
    expect(t.play.mock.calls[1]?.[1]).toEqual({ noHls: true });
    expect(t.view()).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(t.play).toHaveBeenCalledTimes(3);
    expect(t.player.state.transport).toBe('webrtc');
  });
  it('LL-HLS starts once when the broadcaster comes back while it is starting', async () => {
    const t = setup({ status: 'live', replay: [] }, { webrtc: false, slowHls: true });
    t.player.start();
    await vi.advanceTimersByTimeAsync(0);
    // Back while the first start is still under way: no second one on the same video.
    t.host('interrupted');
    t.host('live');
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.hlsStarts()).toBe(1);
  });
});
