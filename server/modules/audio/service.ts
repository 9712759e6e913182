import type { z } from 'zod';
import type { audioStateSchema } from '../../../common/api/audio';
import { AUDIO_SEATS, speakerRoom } from '../../../common/audio';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import type { MediaEngine, MediaSession, PublisherState } from '../../media/engine';
import type { Bus } from '../../realtime/bus';
import { userTopic } from '../../realtime/inbox';
import type { LiveService } from '../live';
import type { RoomService } from '../room';
import { audioRepo, type RequestRow, type SeatRow } from './repo';

/** A voice's node that could not be reached is asked again after these waits. */
const CUT_AGAIN_MS = [1000, 3000, 9000];

export type AudioState = z.output<typeof audioStateSchema>;

type Person = { uid: number; short_id: string; nickname: string; face: string | null; country: string };
const person = (r: Person): Person => ({
  uid: r.uid,
  short_id: r.short_id,
  nickname: r.nickname,
  face: r.face,
  country: r.country,
});

/**
 * Audio rooms (issue 23 item 3): a broadcast whose media is its host's voice, with up to seven
 * co-hosts on seats. Co-hosts come by the host's invitation or by raising a hand the host accepts;
 * the host mutes (their voice is then cut here, not only in their page) and removes them. Each
 * speaker's voice is an engine room of its own (the host's is the broadcast's), which listeners
 * play: the SFU forwards every speaker's Opus as it comes.
 */
export class AudioService {
  readonly #unsubscribe: () => void;

  constructor(
    private readonly db: Db,
    private readonly opts: {
      live: Pick<LiveService, 'start' | 'get' | 'publishVoice' | 'play' | 'sides'>;
      media: Pick<MediaEngine, 'publish' | 'play' | 'closeRoom' | 'room' | 'onPublisher' | 'audioOnly'>;
      room: Pick<RoomService, 'isBlocked'>;
      /** Where the seats are pushed (the room's /ws topic) and invitations told (the person's). */
      bus: Pick<Bus, 'signal'>;
      log?: (err: unknown) => void;
    },
  ) {
    // A voice that connects or goes (a co-host's room here, or the host's broadcast) changes who
    // speaks: every page in the room hears it (rooms that are not audio rooms are left alone).
    this.#unsubscribe = opts.media.onPublisher((room, state) => void this.#voice(room, state));
  }

  /**
   * A voice published here connected or went. A co-host's is noted as on this node (listeners on
   * other nodes pull it from here; a mute made on any node cuts it here), or as gone; a voice
   * whose speaker has no seat any more is cut. Then the room hears who speaks.
   */
  async #voice(room: string, state: PublisherState): Promise<void> {
    const [vid = room, uid] = room.split('~');
    const node = this.opts.live.sides.node;
    try {
      if (uid !== undefined && state === 'closed') await audioRepo.voiceGone(this.db, vid, Number(uid), node);
      if (
        uid !== undefined &&
        state === 'connected' &&
        !(await audioRepo.voiceAt(this.db, vid, Number(uid), node))
      )
        await this.opts.media.closeRoom(room);
    } catch (err) {
      this.opts.log?.(err);
    }
    await this.#tell(vid);
  }

  close(): void {
    this.#unsubscribe();
  }

  /** The host opens a room: their one broadcast (as the studio's), marked as an audio room. */
  async open(uid: number, title: string): Promise<string> {
    // Refused before a broadcast is made: nobody could speak in it.
    if (!this.opts.media.audioOnly) throw new AppError('audio_unavailable');
    const { live } = await this.opts.live.start(uid, {
      title,
      orientation: 'portrait',
      category: 'chat',
      kind: 'audio',
    });
    await audioRepo.create(this.db, live.vid);
    return live.vid;
  }

  /** The broadcast of an audio room that is still on (or about to be); `video_ended` once over. */
  async #room(vid: string, open = true) {
    const live = await this.opts.live.get(vid);
    if (!live || !(await audioRepo.exists(this.db, vid))) throw new AppError('video_not_found');
    if (open && live.status !== 'created' && live.status !== 'live') throw new AppError('video_ended');
    return live;
  }

  /** Whether `uid` speaks on a seat of the audio room `vid` now (gifts may go to them). */
  speaks(vid: string, uid: number): Promise<boolean> {
    return audioRepo.seated(this.db, vid, uid);
  }

  /**
   * Pushes the room's seats to everyone in it, after a change (see audioEventSchema): its version
   * raised first, so a page that hears two states keeps the newer. A push that fails is logged;
   * pages ask for the state now and then anyway.
   */
  async #tell(vid: string): Promise<void> {
    try {
      const seq = await audioRepo.bump(this.db, vid);
      if (seq === null) return;
      const { seats, hand_count } = await this.state(vid, null);
      await this.opts.bus.signal({ t: 'audio', room: vid, seats, hand_count, seq });
    } catch (err) {
      if (!(err instanceof AppError)) this.opts.log?.(err);
    }
  }

  async state(vid: string, reader: number | null): Promise<AudioState> {
    const live = await this.#room(vid, false);
    const [seats, requests, found] = await Promise.all([
      audioRepo.seats(this.db, vid),
      audioRepo.requests(this.db, vid),
      audioRepo.person(this.db, live.uid),
    ]);
    if (!found) throw new AppError('video_not_found');
    const host = person(found);
    const out: AudioState['seats'] = Array.from({ length: AUDIO_SEATS }, () => null);
    const speaking = await Promise.all(
      seats.map((s) => this.#speaking(speakerRoom(vid, s.uid, live.uid), s.node)),
    );
    out[0] = {
      seat: 0,
      person: host,
      muted: false,
      host_muted: false,
      speaking: live.status === 'live',
    };
    seats.forEach((s, i) => (out[s.seat] = this.#seat(s, speaking[i] === true)));
    const hands = requests.filter((r) => r.kind === 'hand');
    const mine = (kind: RequestRow['kind']) => requests.some((r) => r.uid === reader && r.kind === kind);
    return {
      vid,
      title: live.title,
      status: live.status,
      host,
      seats: out,
      hands: reader === live.uid ? hands.map(person) : [],
      hand_count: hands.length,
      me: {
        seat: reader === live.uid ? 0 : (seats.find((s) => s.uid === reader)?.seat ?? null),
        hand: mine('hand'),
        invited: mine('invite'),
      },
    };
  }

  /**
   * Whether a co-host's voice is on: published here (this node knows at once), or to another node
   * that is up.
   */
  async #speaking(room: string, node: string | null): Promise<boolean> {
    const { sides } = this.opts.live;
    if (node === sides.node) return this.opts.media.room(room)?.pulled === false;
    return node !== null && sides.up(node);
  }

  /** A co-host's seat; `speaking`: see #speaking. */
  #seat(s: SeatRow, speaking: boolean): NonNullable<AudioState['seats'][number]> {
    return {
      seat: s.seat,
      person: person(s),
      muted: s.muted,
      host_muted: s.host_muted,
      speaking,
    };
  }

  async #host(vid: string, uid: number) {
    const live = await this.#room(vid);
    if (live.uid !== uid) throw new AppError('not_room_owner');
    return live;
  }

  /** A listener asks to speak (or takes it back); the host's blocks hold. */
  async hand(vid: string, uid: number, up: boolean): Promise<void> {
    const live = await this.#room(vid);
    if (live.uid === uid) throw new AppError('not_allowed');
    if (up && (await this.opts.room.isBlocked(live.uid, uid))) throw new AppError('blocked_permanently');
    await audioRepo.request(this.db, vid, uid, 'hand', up);
    await this.#tell(vid);
  }

  /** The host invites someone to a seat; they take it themselves (POST …/seat). */
  async invite(vid: string, host: number, uid: number): Promise<void> {
    await this.#host(vid, host);
    if (uid === host) throw new AppError('not_allowed');
    if (await this.opts.room.isBlocked(host, uid)) throw new AppError('blocked_permanently');
    await audioRepo.request(this.db, vid, uid, 'invite', true);
    await this.opts.bus
      .signal({ t: 'audio_invite', room: userTopic(uid), vid })
      .catch((err: unknown) => this.opts.log?.(err));
  }

  /** The host seats a raised hand. */
  async accept(vid: string, host: number, uid: number): Promise<number> {
    await this.#host(vid, host);
    if (!(await audioRepo.hasRequest(this.db, vid, uid, 'hand'))) throw new AppError('not_found');
    return this.#seatOf(vid, uid);
  }

  /** An invited person takes a seat. */
  async take(vid: string, uid: number): Promise<number> {
    const live = await this.#room(vid);
    if (!(await audioRepo.hasRequest(this.db, vid, uid, 'invite'))) throw new AppError('not_allowed');
    if (await this.opts.room.isBlocked(live.uid, uid)) throw new AppError('blocked_permanently');
    return this.#seatOf(vid, uid);
  }

  async #seatOf(vid: string, uid: number): Promise<number> {
    const seat = await audioRepo.seat(this.db, vid, uid, AUDIO_SEATS);
    // Every seat is taken: 'room full' in the page's words.
    if (seat === null) throw new AppError('not_allowed', { reason: 'seats_full' });
    await this.#tell(vid);
    return seat;
  }

  /** Leaving one's seat (or the host removing a co-host): their voice stops here at once. */
  async leave(vid: string, uid: number, by: number): Promise<void> {
    const live = await this.#room(vid, false);
    if (by !== uid && by !== live.uid) throw new AppError('not_room_owner');
    const left = await audioRepo.leave(this.db, vid, uid);
    if (!left) throw new AppError('not_found');
    // Cut for as long as they have not taken a seat again with a voice on that node.
    await this.#cut(vid, uid, live.uid, left.node, async () => {
      const seat = await audioRepo.seatOf(this.db, vid, uid);
      return !seat || seat.node !== left.node;
    });
    await this.#tell(vid);
  }

  /**
   * Mutes or unmutes a co-host: the host anyone (then the co-host cannot unmute themselves, and
   * their voice is cut here), a co-host themselves. The host mutes their own microphone in the page.
   */
  async mute(vid: string, uid: number, muted: boolean, by: number): Promise<void> {
    const live = await this.#room(vid);
    const byHost = by === live.uid;
    if (!byHost && by !== uid) throw new AppError('not_room_owner');
    if (!byHost) {
      const mine = await audioRepo.seatOf(this.db, vid, uid);
      if (!mine) throw new AppError('not_found');
      if (mine.host_muted && !muted) throw new AppError('not_allowed');
    }
    const seat = await audioRepo.mute(this.db, vid, uid, muted, byHost);
    if (!seat) throw new AppError('not_found');
    if (byHost && muted) {
      // Cut for as long as the host has not let them speak again.
      await this.#cut(vid, uid, live.uid, seat.node, async () => {
        const now = await audioRepo.seatOf(this.db, vid, uid);
        return now?.host_muted === true;
      });
      // Not speaking from now on, wherever this is read (the node that had it says so too).
      if (seat.node) await audioRepo.voiceGone(this.db, vid, uid, seat.node);
    }
    await this.#tell(vid);
  }

  /**
   * Ends a co-host's voice where it is (`node`), their seat already changed (removed, or muted by
   * the host). A node that cannot be reached now does not make the host's action fail: it is
   * asked again in the background a few times (logged each time), while `still` says the voice
   * should go. A node that is gone took the voice with it (see SideRooms.close).
   */
  async #cut(
    vid: string,
    uid: number,
    host: number,
    node: string | null,
    still: () => Promise<boolean>,
  ): Promise<void> {
    const room = speakerRoom(vid, uid, host);
    const log = (err: unknown) => this.opts.log?.(err);
    const attempt = async (n: number): Promise<void> => {
      try {
        await this.opts.live.sides.close(room, node);
      } catch (err) {
        log(err);
        const wait = CUT_AGAIN_MS[n];
        if (wait === undefined) return;
        setTimeout(() => {
          still()
            .then((go) => (go ? attempt(n + 1) : undefined))
            .catch(log);
        }, wait).unref();
      }
    };
    await attempt(0);
  }

  /** A speaker's voice (an SDP offer with Opus): the host's is the broadcast, a co-host's its own room. */
  async speak(vid: string, uid: number, offer: string): Promise<MediaSession> {
    const live = await this.#room(vid);
    if (uid === live.uid) return this.opts.live.publishVoice(vid, uid, offer);
    const seatOf = () => audioRepo.seatOf(this.db, vid, uid);
    const before = await seatOf();
    if (!before) throw new AppError('not_allowed');
    if (before.host_muted) throw new AppError('not_allowed', { reason: 'host_muted' });
    const room = speakerRoom(vid, uid, live.uid);
    const { sides } = this.opts.live;
    const session = await this.opts.media.publish(room, offer, { audioOnly: true });
    // Noted as on this node, then asked again: a mute or removal made meanwhile on any node either
    // found it noted (and cut it here) or is seen now (and cut here).
    const now = (await audioRepo.voiceAt(this.db, vid, uid, sides.node)) ? await seatOf() : undefined;
    if (!now || now.host_muted) {
      await this.opts.media.closeRoom(room);
      throw new AppError('not_allowed', now ? { reason: 'host_muted' } : undefined);
    }
    // The voice they had on another node (they came back through this one) ends there.
    if (before.node && before.node !== sides.node)
      await sides.close(room, before.node).catch((err: unknown) => this.opts.log?.(err));
    return session;
  }

  /**
   * A listener's offer for one speaker's voice. The host's goes through the broadcast's own play
   * (viewer limits and counts, blocks); a co-host's room is played here, blocks checked first.
   */
  async listen(
    vid: string,
    speaker: number,
    offer: string,
    who: { uid: number | null; deviceId: string | null; ip: string },
  ): Promise<{ session: MediaSession } | { redirect: string }> {
    const live = await this.#room(vid);
    // The host's voice is the broadcast: played as its viewers are (pulled from its origin node,
    // or sent to a node with room when this one is full).
    if (speaker === live.uid) return this.opts.live.play(vid, offer, who);
    if (who.uid && (await this.opts.room.isBlocked(live.uid, who.uid)))
      throw new AppError('blocked_permanently');
    const room = speakerRoom(vid, speaker, live.uid);
    // A co-host's voice published to another node is pulled from there.
    await this.opts.live.sides.pull(room, () => audioRepo.voiceNode(this.db, vid, speaker));
    const voice = this.opts.media.room(room);
    if (!voice) throw new AppError('no_publisher');
    // A co-host's voice is heard by the room's listeners, whom the host's voice (the broadcast's
    // play) admits and counts: it takes no more than they are (and the other speakers), so it
    // cannot be made to carry more than the broadcast itself.
    const listeners = this.opts.media.room(live.vid)?.viewers ?? 0;
    if (voice.viewers >= listeners + AUDIO_SEATS) throw new AppError('media_full');
    return { session: await this.opts.media.play(room, offer) };
  }
}
