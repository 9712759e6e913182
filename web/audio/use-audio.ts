// The audio room's state in the page: polled (seats change by people's actions, there is no
// push), and the voices kept in step with it.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { AudioState } from '../../common/api/audio';
import { AUDIO_POLL_MS } from '../../common/audio';
import { ApiError } from '../lib/api';
import { audioApi } from './audio-api';
import { LEVEL_MS, Voices } from './voices';

/** The room, asked for every AUDIO_POLL_MS (and at once after the reader's own actions). */
export function useAudioState(initial: AudioState): {
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
  useEffect(() => {
    if (over) return;
    const timer = window.setInterval(() => void refresh(), AUDIO_POLL_MS);
    return () => window.clearInterval(timer);
  }, [refresh, over]);
  return { state, error, refresh };
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
