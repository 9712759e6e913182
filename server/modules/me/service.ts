import type { z } from 'zod';
import type { meAnswer } from '../../../common/api/auth';
import { Recent } from '../../infra/recent';
import { userInfo, type AuthService } from '../auth';

/** What /me adds about the user: staff or not, and follow counts. */
export type AboutMe = (
  uid: number,
) => Promise<{ staff: boolean; follower_count: number; following_count: number }>;

export type MeAnswer = z.infer<typeof meAnswer>;

/**
 * The signed-in person's own view of themselves (/me), which every page asks for: kept per
 * person for a while on this node, and dropped on every node when their profile or follow counts
 * change (`forget`, fed by the wiring from the bus). Staff marks changed in the database by hand
 * take up to the time to live.
 */
export class MeService {
  readonly #recent: Recent<number, MeAnswer | null>;

  constructor(
    private readonly auth: Pick<AuthService, 'user'>,
    private readonly about: AboutMe,
    opts: { ttlMs?: number } = {},
  ) {
    this.#recent = new Recent({ ttlMs: opts.ttlMs ?? 30_000 });
  }

  /** The person's /me answer, or null if there is no such person. */
  me(uid: number): Promise<MeAnswer | null> {
    return this.#recent.get(uid, async () => {
      const [user, about] = await Promise.all([this.auth.user(uid), this.about(uid)]);
      if (!user) return null;
      return {
        user_info: { ...userInfo(user), staff: about.staff },
        count_info: { follower_count: about.follower_count, following_count: about.following_count },
      };
    });
  }

  forget(uids: readonly number[]): void {
    this.#recent.forget(uids);
  }
}
