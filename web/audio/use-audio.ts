// The audio room's state in the page: pushed over /ws as it changes (the seats, the raised hands'
// count, an invitation to the reader), asked for over HTTP at the start, after the reader's own
// actions and now and then in case a push was lost; the voices kept in step with it.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { AudioSeat, AudioState } from '../../common/api/audio';
import { AUDIO_POLL_MS } from '../../common/audio';
import { ApiError } from '../lib/api';
import { realtime } from '../live/realtime';
import { audioApi } from './audio-api';
import { LEVEL_MS, Voices } from './voices';

/** The room for reader `me` (0 signed out): pushed, and asked for every AUDIO_POLL_MS besides. */
export function useAudioState(
  initial: AudioState,
  me: number,
): {
  state: AudioState;
  error: unknown;
  refresh: () => Promise<void>;
} {
  const [state, setState] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const vid = initial.vid;
  const seq = useRef(0);
  const refresh = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const next = await audioApi.state(vid);
      // An older answer arriving after a newer one must not bring back the old seats.
      if (mine !== seq.current) return;
      setState(next);
      setError(null);
    } catch (err) {
      if (mine !== seq.current) return;
      // Gone: shown as ended (the room was deleted or expired under the reader).
      if (err instanceof ApiError && (err.status === 404 || err.status === 410))
        setState((s) => ({ ...s, status: 'ended' }));
      else setError(err);
    }
  }, [vid]);
  const over = state.status === 'ended' || state.status === 'expired' || state.status === 'deleted';
  const isHost = me === initial.host.uid;
  useEffect(() => {
    if (over) return;
    const timer = window.setInterval(() => void refresh(), AUDIO_POLL_MS);
    const leave = realtime().join(vid, {
      // A join or a rejoin after the connection dropped: what changed meanwhile is read again.
      joined: () => void refresh(),
      // The host went live, was interrupted or ended: the status and the host's seat follow.
      event: (e) => e.t === 'host' && void refresh(),
      count: () => undefined,
      audio: (seats, handCount) => {
        // An answer to an earlier refresh must not bring back the seats before this push.
        seq.current++;
        setState((s) => pushed(s, seats, handCount, me));
        // The host's list of raised hands has names the push does not carry.
        if (isHost) void refresh();
      },
    });
    const unInbox = me
      ? realtime().inbox(me, {
          notification: () => undefined,
          audioInvite: (room) => room === vid && void refresh(),
          reconnected: () => void refresh(),
        })
      : () => undefined;
    return () => {
      window.clearInterval(timer);
      leave();
      unInbox();
    };
  }, [refresh, over, vid, me, isHost]);
  return { state, error, refresh };
}

/** The state with the seats pushed: the reader's own place follows from them. */
function pushed(s: AudioState, seats: (AudioSeat | null)[], handCount: number, me: number): AudioState {
  const seat = seats.find((x) => x !== null && x.person.uid === me)?.seat ?? null;
  return {
    ...s,
    seats,
    hand_count: handCount,
    // Seated: their hand and invitation were answered (the server cleared both).
    me: seat === null ? { ...s.me, seat } : { seat, hand: false, invited: false },
    // Hands accepted or lowered leave the host's list at once; new ones come with the refresh.
    hands: s.hands.filter((h) => !seats.some((x) => x?.person.uid === h.uid)),
  };
}

/**
 * The voices of the room for `me` (0 signed out): every speaking seat but the reader's own heard,
 * the reader's microphone sent while they hold a seat the host has not muted.
 */
export function useVoices(state: AudioState, me: number) {
  const [voices] = useState(() => new Voices());
  useEffect(() => () => voices.stop(), [voices]);
  const over = state.status !== 'live' && state.status !== 'created';
  const speakers = over
    ? []
    : state.seats.flatMap((s) => (s && s.speaking && s.person.uid !== me ? [s.person.uid] : []));
  const key = speakers.join(',');
  useEffect(() => {
    voices.listenTo((uid) => audioApi.listenUrl(state.vid, uid), key ? key.split(',').map(Number) : []);
    // `state` too: a voice that failed or was dropped is asked for again on every poll.
  }, [voices, key, state.vid, state]);
  const mine = state.seats.find((s) => s?.person.uid === me) ?? null;
  const on = !over && me !== 0 && mine !== null && !mine.host_muted;
  const muted = mine?.muted ?? true;
  useEffect(() => {
    voices.speak(audioApi.speakUrl(state.vid), me, on, muted);
  }, [voices, state.vid, me, on, muted, state]);
  const blocked = useSyncExternalStore(
    voices.subscribe,
    () => voices.blocked,
    () => false,
  );
  const micError = useSyncExternalStore(
    voices.subscribe,
    () => voices.micError,
    () => null,
  );
  return { voices, blocked, micError };
}

/** The uids speaking now, by their voices' levels (read every LEVEL_MS). */
export function useSpeaking(voices: Voices): Set<number> {
  const [speaking, setSpeaking] = useState<Set<number>>(() => new Set());
  useEffect(() => {
    const timer = window.setInterval(() => {
      const now = voices.speaking();
      setSpeaking((was) => (was.size === now.size && [...now].every((u) => was.has(u)) ? was : now));
    }, LEVEL_MS);
    return () => window.clearInterval(timer);
  }, [voices]);
  return speaking;
}
