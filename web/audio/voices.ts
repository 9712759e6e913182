// The voices of an audio room in the browser: one listening session per speaker (each played by
// its own <audio> element), the reader's own microphone while they hold a seat, and the level of
// each, read from WebAudio analysers for the speaking rings.
import { hearAudio, speakAudio, watchFlow, type Session } from '../live/webrtc';

/**
 * RMS of a voice's samples above which its seat shows a speaking ring: -40 dBFS, above a quiet
 * room's noise (about -50 dBFS) and well under speech (-30 to -20 dBFS).
 */
const SPEAKING_RMS = 0.01;
/**
 * A voice from which nothing arrived this long is dropped and asked for again (Opus sends 50
 * packets a second even in silence): the speaker published again after a mute, or a node went.
 */
const STALL_MS = 3000;
/**
 * Samples each level reading looks at: 43 ms at 48 kHz, about the time between readings
 * (LEVEL_MS), so that a short sound between two readings is not missed.
 */
const WINDOW = 2048;
/** How often the levels are read. */
export const LEVEL_MS = 40;
/** The ring stays this long after the last loud sample, so it does not flicker between words. */
const HOLD_MS = 400;
/**
 * How often voices that failed or dropped are asked for again, and a microphone whose sending
 * failed sent again (the seats are pushed, not polled: no state change may come to retry them).
 */
const RESYNC_MS = 3000;

interface Voice {
  session: Session | null;
  audio: HTMLAudioElement | null;
  analyser: AnalyserNode | null;
  loudAt: number;
  closed: boolean;
  /** Stops watching the voice's packets. */
  unwatch?: () => void;
}

type Listener = () => void;

/** `blocked`: the browser refused to play sound before a tap (autoplay policy). */
export class Voices {
  private ctx: AudioContext | null = null;
  private heard = new Map<number, Voice>();
  private mine: (Voice & { stream: MediaStream; uid: number }) | null = null;
  private speakingTo: string | null = null;
  private listeners = new Set<Listener>();
  private buf = new Float32Array(WINDOW);
  blocked = false;
  /** An <audio> element's play() was refused (autoplay policy) until a tap. */
  private refused = false;
  micError: unknown = null;
  /** What the page last asked for: kept up every RESYNC_MS. */
  private wanted: { urlOf: (uid: number) => string; uids: number[] } | null = null;
  private wantSpeak: { url: string; uid: number; on: boolean; muted: boolean } | null = null;
  private resync: number | null = null;

  subscribe = (l: Listener): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private context(): AudioContext {
    if (this.ctx) return this.ctx;
    const ctx = new AudioContext();
    this.ctx = ctx;
    ctx.addEventListener('statechange', () => {
      if (ctx.state === 'running' && !this.refused) this.setBlocked(false);
    });
    // A new context starts suspended and runs a moment later when the browser allows sound;
    // without a tap first it may stay suspended (the levels read zero): then the page asks.
    window.setTimeout(() => {
      if (this.ctx === ctx && ctx.state === 'suspended') this.setBlocked(true);
    }, 1000);
    return ctx;
  }

  private setBlocked(blocked: boolean): void {
    if (this.blocked === blocked) return;
    this.blocked = blocked;
    this.changed();
  }

  private analyse(stream: MediaStream): AnalyserNode {
    const ctx = this.context();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = WINDOW;
    // Not connected onward: the <audio> element plays the sound, the analyser only measures it.
    ctx.createMediaStreamSource(stream).connect(analyser);
    return analyser;
  }

  /** Keeps the voices and the microphone as last asked, every RESYNC_MS, until stop(). */
  private keepUp(): void {
    this.resync ??= window.setInterval(() => {
      if (this.wanted) this.hearAll(this.wanted.urlOf, this.wanted.uids);
      const w = this.wantSpeak;
      if (w?.on) this.setSpeaking(w.url, w.uid, w.on, w.muted);
    }, RESYNC_MS);
  }

  /** Opens a session to each of `uids` not heard yet and closes those no longer speaking. */
  listenTo(urlOf: (uid: number) => string, uids: number[]): void {
    this.wanted = { urlOf, uids };
    this.keepUp();
    this.hearAll(urlOf, uids);
  }

  private hearAll(urlOf: (uid: number) => string, uids: number[]): void {
    for (const [uid, voice] of this.heard)
      if (!uids.includes(uid)) {
        this.close(voice);
        this.heard.delete(uid);
      }
    for (const uid of uids) if (!this.heard.has(uid)) this.hear(uid, urlOf(uid));
  }

  private hear(uid: number, url: string): void {
    const voice: Voice = { session: null, audio: null, analyser: null, loudAt: 0, closed: false };
    this.heard.set(uid, voice);
    hearAudio(url, (stream) => {
      if (voice.closed || voice.audio) return;
      const audio = new Audio();
      audio.srcObject = stream;
      voice.audio = audio;
      voice.analyser = this.analyse(stream);
      audio.play().catch(() => {
        this.refused = true;
        this.setBlocked(true);
      });
    })
      .then((session) => {
        if (voice.closed) return void session.stop();
        voice.session = session;
        // The speaker stopped or the node went: forgotten, so the next resync opens it again.
        const drop = () => {
          if (this.heard.get(uid) !== voice) return;
          this.close(voice);
          this.heard.delete(uid);
        };
        session.pc.addEventListener('connectionstatechange', () => {
          const s = session.pc.connectionState;
          if (s === 'failed' || s === 'closed') drop();
        });
        // A voice that never flows (its speaker's publication was replaced) is dropped too.
        let flowed = false;
        const never = window.setTimeout(() => !flowed && drop(), STALL_MS * 2);
        const unwatch = watchFlow(
          session.pc,
          (flowing) => {
            flowed ||= flowing;
            if (!flowing) drop();
          },
          { stallMs: STALL_MS },
        );
        voice.unwatch = () => {
          window.clearTimeout(never);
          unwatch();
        };
      })
      .catch(() => {
        // Refused or unreachable: tried again on the next resync.
        voice.closed = true;
        if (this.heard.get(uid) === voice) this.heard.delete(uid);
      });
  }

  private close(voice: Voice): void {
    voice.closed = true;
    voice.unwatch?.();
    if (voice.audio) {
      voice.audio.pause();
      voice.audio.srcObject = null;
    }
    void voice.session?.stop();
  }

  /**
   * Sends the microphone to `url` while `on` (the reader holds a seat the host has not muted);
   * `muted` silences the track without hanging up.
   */
  speak(url: string, uid: number, on: boolean, muted: boolean): void {
    this.wantSpeak = { url, uid, on, muted };
    this.keepUp();
    this.setSpeaking(url, uid, on, muted);
  }

  private setSpeaking(url: string, uid: number, on: boolean, muted: boolean): void {
    if (!on) {
      this.speakingTo = null;
      if (this.mine) {
        this.close(this.mine);
        for (const t of this.mine.stream.getTracks()) t.stop();
        this.mine = null;
      }
      return;
    }
    if (this.mine) {
      for (const t of this.mine.stream.getAudioTracks()) t.enabled = !muted;
      return;
    }
    // A microphone the browser refused is tried again only on the reader's retry() (not every
    // resync); a refused offer is tried again on the next resync.
    if (this.speakingTo === url || this.micError instanceof DOMException) return;
    this.speakingTo = url;
    void this.publish(url, uid, muted);
  }

  private async publish(url: string, uid: number, muted: boolean): Promise<void> {
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (err) {
      this.micError = err;
      this.speakingTo = null;
      return this.changed();
    }
    if (this.speakingTo !== url) return stream.getTracks().forEach((t) => t.stop());
    for (const t of stream.getAudioTracks()) t.enabled = !muted;
    const mine: Voice & { stream: MediaStream; uid: number } = {
      session: null,
      audio: null,
      analyser: this.analyse(stream),
      loudAt: 0,
      closed: false,
      stream,
      uid,
    };
    this.mine = mine;
    try {
      mine.session = await speakAudio(url, stream);
      if (mine.closed) return void mine.session.stop();
      if (this.micError !== null) {
        this.micError = null;
        this.changed();
      }
      mine.session.pc.addEventListener('connectionstatechange', () => {
        const s = mine.session?.pc.connectionState;
        // The server closed the voice (the host muted them) or the node went: published again
        // on the next resync while the seat is still theirs.
        if ((s === 'failed' || s === 'closed') && this.mine === mine) this.setSpeaking(url, uid, false, true);
      });
    } catch (err) {
      this.micError = err;
      if (this.mine === mine) this.setSpeaking(url, uid, false, true);
      this.changed();
    }
  }

  /** The reader asks to try the microphone again after a failure. */
  retry(): void {
    this.micError = null;
    this.changed();
  }

  /** After a tap: sound and levels may start. */
  unlock(): void {
    void this.ctx?.resume().then(() => {
      if (this.ctx?.state === 'running') this.setBlocked(false);
    });
    let refused = false;
    const plays = [...this.heard.values()].map((v) =>
      v.audio ? v.audio.play().catch(() => (refused = true)) : Promise.resolve(),
    );
    void Promise.all(plays).then(() => {
      this.refused = refused;
      this.setBlocked(refused || this.ctx?.state === 'suspended');
    });
  }

  /** The uids whose voice is loud now (or was within HOLD_MS). */
  speaking(now = performance.now()): Set<number> {
    const out = new Set<number>();
    const check = (uid: number, v: Voice) => {
      if (!v.analyser) return;
      v.analyser.getFloatTimeDomainData(this.buf);
      let sum = 0;
      for (const x of this.buf) sum += x * x;
      if (Math.sqrt(sum / this.buf.length) > SPEAKING_RMS) v.loudAt = now;
      if (v.loudAt && now - v.loudAt < HOLD_MS) out.add(uid);
    };
    for (const [uid, v] of this.heard) check(uid, v);
    if (this.mine && this.mine.stream.getAudioTracks().some((t) => t.enabled))
      check(this.mine.uid, this.mine);
    return out;
  }

  stop(): void {
    if (this.resync !== null) window.clearInterval(this.resync);
    this.resync = null;
    this.wanted = null;
    this.wantSpeak = null;
    for (const v of this.heard.values()) this.close(v);
    this.heard.clear();
    if (this.mine) this.setSpeaking('', this.mine.uid, false, true);
    void this.ctx?.close();
    this.ctx = null;
  }
}
