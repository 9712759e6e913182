import type { ObsPolicy as ObsPolicyAnswer } from '../../../common/api/content';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import { Recent } from '../../infra/recent';
import type { StaffActor, StaffGuard } from '../staff';
import { obsRepo } from './obs-repo';

/**
 * Who may broadcast from OBS (spec §7 obswhitelist). Until staff set it in the console, the
 * OBS_WHITELIST setting decides ('all' or short ids); from then on the console's choice: everyone,
 * or only the people listed. Each node keeps the answer a minute, and drops it when any node
 * announces a change (`changed`).
 */
export class ObsPolicy {
  readonly #policy = new Recent<'policy', { mode: 'all' | 'list'; source: 'config' | 'staff' }>({
    ttlMs: 60_000,
  });

  constructor(
    private readonly db: Db,
    private readonly opts: {
      /** OBS_WHITELIST: 'all', or the short ids that may. */
      configured: 'all' | readonly string[];
      staff: Pick<StaffGuard, 'audit'>;
      changed: () => Promise<void>;
      /** Someone's short id (the users module's). */
      shortIdOf: (uid: number) => Promise<string | null>;
    },
  ) {}

  /** Some node announced a change: read it again next time. */
  forget(): void {
    this.#policy.clear();
  }

  async allowed(uid: number): Promise<boolean> {
    const { mode, source } = await this.#mode();
    if (mode === 'all') return true;
    if (source === 'staff') return obsRepo.listed(this.db, uid);
    const shortId = await this.opts.shortIdOf(uid);
    return shortId !== null && this.opts.configured.includes(shortId);
  }

  /** The policy as the console shows it (the configured short ids as people, while it decides). */
  async get(): Promise<ObsPolicyAnswer> {
    const { mode, source } = await this.#mode();
    const list =
      source === 'staff'
        ? await obsRepo.list(this.db)
        : await obsRepo.byShortIds(this.db, this.opts.configured === 'all' ? [] : this.opts.configured);
    return { mode, source, list };
  }

  /**
   * Staff choose everyone or the list. Taking over from the setting keeps the people it named, so
   * switching to the console changes nobody's access.
   */
  async setMode(actor: StaffActor, mode: 'all' | 'list'): Promise<ObsPolicyAnswer> {
    const before = await this.get();
    await this.db.transaction(async (tx) => {
      await obsRepo.setMode(tx, mode, actor.uid);
      if (before.source === 'config') for (const p of before.list) await obsRepo.add(tx, p.uid, actor.uid);
      await this.opts.staff.audit(actor, 'obs.mode', 'obs', { mode: before.mode }, { mode }, null, tx);
    });
    return this.#changed();
  }

  async add(actor: StaffActor, shortId: string): Promise<ObsPolicyAnswer> {
    await this.#takeOver(actor);
    const [person] = await obsRepo.byShortIds(this.db, [shortId]);
    if (!person) throw new AppError('not_found', { field: 'short_id' });
    await this.db.transaction(async (tx) => {
      await obsRepo.add(tx, person.uid, actor.uid);
      const after = { short_id: shortId };
      await this.opts.staff.audit(actor, 'obs.allow', `user:${person.uid}`, null, after, null, tx);
    });
    return this.#changed();
  }

  async remove(actor: StaffActor, uid: number): Promise<ObsPolicyAnswer> {
    await this.#takeOver(actor);
    await this.db.transaction(async (tx) => {
      await obsRepo.remove(tx, uid);
      await this.opts.staff.audit(actor, 'obs.disallow', `user:${uid}`, undefined, undefined, null, tx);
    });
    return this.#changed();
  }

  /** The list edited while the setting still decided: the console takes over with the setting's mode. */
  async #takeOver(actor: StaffActor): Promise<void> {
    const now = await this.#mode();
    if (now.source === 'config') await this.setMode(actor, now.mode);
  }

  async #changed(): Promise<ObsPolicyAnswer> {
    this.forget();
    await this.opts.changed();
    return this.get();
  }

  #mode() {
    return this.#policy.get('policy', async () => {
      const mode = await obsRepo.mode(this.db);
      if (mode) return { mode, source: 'staff' as const };
      return {
        mode: this.opts.configured === 'all' ? ('all' as const) : ('list' as const),
        source: 'config' as const,
      };
    });
  }
}
