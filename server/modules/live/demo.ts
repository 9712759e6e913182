// The demo's broadcasts (DEMO_LIVES: on by default for `npm start`): each demo host
// (server/modules/users/demo.ts) is live with a looping generated picture, so that a fresh
// install's home, explore and live rooms show someone on air. Each is published as the studio
// publishes: a broadcast started for its host, then WHIP's offer and answer, ICE and DTLS to this
// node's media engine over 127.0.0.1. Not recorded: a replay would grow for as long as the demo
// runs. One that drops (or that staff end) goes on air again at the next check.
import { join } from 'node:path';
import { RTCPeerConnection } from 'werift';
import type { LiveCategory } from '../../../common/api/live';
import { encodeLoop, readLoop, sendLoop, stillOf } from '../../media/h264-loop';
import { h264Codec } from '../../media/werift-room';
import type { UsersService } from '../users';
import type { LiveService } from './service';

interface DemoHost {
  shortId: string;
  title: string;
  category: LiveCategory;
  /** An ffmpeg lavfi source: the picture. */
  source: string;
}

const SIZE = 'size=640x360:rate=30';
const HOSTS: DemoHost[] = [
  {
    shortId: '10000001',
    title: 'Evening session: covers and requests',
    category: 'music',
    source: `mandelbrot=${SIZE}`,
  },
  {
    shortId: '10000002',
    title: 'Noodles from scratch, ask me anything',
    category: 'chat',
    // Life on a small board, each cell four pixels square.
    source:
      'life=size=160x90:rate=30:mold=25:ratio=0.3:life_color=#ffb454:death_color=#5b2a86,scale=640:360:flags=neighbor',
  },
  {
    shortId: '10000003',
    title: 'Pixel patterns while I sketch, calm vibes',
    category: 'talent',
    // Rule 110 scrolling down, in the site's blues (a Mandelbrot zoom in deep takes a minute to make).
    source:
      'cellauto=size=160x90:rate=30:rule=110:random_fill_ratio=0.5:scroll=1,scale=640:360:flags=neighbor,lutrgb=r=val*0.25+30:g=val*0.7+20:b=val*0.95+60',
  },
];
/** The centre of a 640×360 picture, 3:4. */
const COVER_BOX = { x: 185, y: 0, w: 270, h: 360 };
/** Seconds of each loop. */
const LOOP_SECONDS = 12;
/** How often a demo host that is not on air is put on air again. */
const CHECK_MS = 15_000;
/** A connection that is not up by then is given up on (and tried again at a later check). */
const CONNECT_MS = 20_000;

interface OnAir {
  uid: number;
  vid: string;
  pc: RTCPeerConnection;
  stop: () => void;
}

export class DemoLives {
  readonly #onAir = new Map<string, OnAir>();
  #timer: NodeJS.Timeout | null = null;
  #checking: Promise<void> | null = null;
  #stopped = false;
  /** Settles when `stop` is called: what a go-live waits for (ffmpeg, ICE) gives way to it. */
  readonly #halt: Promise<void>;
  #halted = () => {};

  constructor(
    private readonly deps: {
      live: LiveService;
      users: UsersService;
      ffmpeg: string;
      /** Where the encoded loops are kept (made once). */
      dir: string;
      log: (err: unknown) => void;
    },
  ) {
    this.#halt = new Promise((resolve) => {
      this.#halted = resolve;
    });
  }

  /** Puts the demo hosts on air now (in the background) and checks on them from then on. */
  start(): void {
    this.#check();
    this.#timer = setInterval(() => this.#check(), CHECK_MS);
    this.#timer.unref();
  }

  /** Stops the pictures and ends the demo's broadcasts. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#halted();
    if (this.#timer) clearInterval(this.#timer);
    // A go-live under way stops at its next step and ends what it started (see #step).
    await this.#checking;
    await Promise.all([...this.#onAir.keys()].map((shortId) => this.#takeOff(shortId, true)));
  }

  #check(): void {
    if (this.#checking || this.#stopped) return;
    this.#checking = (async () => {
      for (const host of HOSTS) {
        if (this.#stopped) return;
        const on = this.#onAir.get(host.shortId);
        if (on && ['new', 'connecting', 'connected'].includes(on.pc.connectionState)) continue;
        if (on) await this.#takeOff(host.shortId, false);
        await this.#goLive(host).catch((err: unknown) => {
          if (!this.#stopped) this.deps.log(err);
        });
      }
    })().finally(() => {
      this.#checking = null;
    });
  }

  async #goLive(host: DemoHost): Promise<void> {
    // Not seeded yet (the first start seeds after the jobs begin) or removed: the next check.
    const uid = (await this.deps.users.byShortId(host.shortId))?.uid;
    if (uid === undefined) return;
    const file = join(this.deps.dir, `${host.shortId}.h264`);
    await this.#step(encodeLoop(this.deps.ffmpeg, host.source, LOOP_SECONDS, file));
    const frames = readLoop(file);
    const still = await this.#step(stillOf(this.deps.ffmpeg, file, LOOP_SECONDS / 2));
    const { live, publishToken } = await this.deps.live.start(uid, {
      title: host.title,
      orientation: 'landscape',
      category: host.category,
      // A broadcast of this host left by the node's last run.
      takeOver: true,
    });
    // The cards' cover: the middle of the loop, its centre cut to the cards' 3:4.
    await this.deps.live.setCover(uid, live.vid, still, COVER_BOX);
    const pc = new RTCPeerConnection({
      codecs: { audio: [], video: [h264Codec()] },
      iceServers: [],
      iceAdditionalHostAddresses: ['127.0.0.1'],
      iceUseIpv6: false,
    });
    const video = pc.addTransceiver('video', { direction: 'sendonly' });
    let stopLoop = () => {};
    this.#onAir.set(host.shortId, { uid, vid: live.vid, pc, stop: () => stopLoop() });
    try {
      await pc.setLocalDescription(await pc.createOffer());
      const offer = pc.localDescription?.sdp ?? '';
      const session = await this.deps.live.publish(live.vid, publishToken, offer, { record: false });
      await pc.setRemoteDescription({ type: 'answer', sdp: session.answer });
      if (pc.connectionState !== 'connected')
        await this.#step(pc.connectionStateChange.watch((s) => s === 'connected', CONNECT_MS));
      if (this.#stopped) throw new Error('the demo stopped');
      stopLoop = sendLoop(video, frames);
    } catch (err) {
      // Ended, not left to lapse: the next check starts it afresh.
      await this.#takeOff(host.shortId, true);
      throw err;
    }
  }

  /**
   * Waits for `work` unless the demo stops first (then throws, and what was started is ended by
   * the caller): the server's shutdown does not wait on ffmpeg or on a connection coming up.
   */
  async #step<T>(work: Promise<T>): Promise<T> {
    const stopped = this.#halt.then(() => {
      throw new Error('the demo stopped');
    });
    // Whichever loses is not waited for; its rejection is not an error of anyone's.
    stopped.catch(() => undefined);
    work.catch(() => undefined);
    return Promise.race([work, stopped]);
  }

  /** Stops a host's picture; `end`: its broadcast ends too (else the engine finds it gone). */
  async #takeOff(shortId: string, end: boolean): Promise<void> {
    const on = this.#onAir.get(shortId);
    if (!on) return;
    this.#onAir.delete(shortId);
    on.stop();
    if (end) await this.deps.live.end(on.uid, on.vid).catch(() => undefined);
    await on.pc.close();
  }
}
