import { AppError } from '../../../common/errors';
import type { Kv } from '../../infra/kv';
import { addressGroup } from '../../infra/networks';

/** Failed sign-ins for one account, from anywhere, before a captcha is required (spec: need_captcha = 1). */
const FAILURES_BEFORE_CAPTCHA = 3;
/** Failed sign-ins for one account from one source before that source is refused for a while. */
const FAILURES_PER_SOURCE = 10;
const FAILURE_WINDOW_S = 900;

/**
 * Failed password sign-ins, counted per account and per account and source. Only real guesses
 * count (a password that decrypted and was checked): input nobody could check says nothing about
 * the account and never counts against it. Failures from anywhere make the account ask for a
 * captcha; failures from one source stop only that source, so nobody can lock the owner out.
 */
export class LoginFailures {
  constructor(
    private readonly kv: Kv,
    private readonly scale = 1,
  ) {}

  /**
   * Before a guess is checked: refuses a source that failed too often on this account, and says
   * whether the account wants a captcha first.
   */
  async check(account: string, ip: string): Promise<{ needCaptcha: boolean }> {
    const [fromSource, all] = await Promise.all([
      this.kv.get(this.#sourceKey(account, ip)),
      this.kv.get(this.#accountKey(account)),
    ]);
    if (Number(fromSource ?? 0) >= Math.ceil(FAILURES_PER_SOURCE * this.scale))
      throw new AppError('too_many_requests');
    return { needCaptcha: Number(all ?? 0) >= FAILURES_BEFORE_CAPTCHA };
  }

  /** A wrong password (or no such account): answers whether the account now wants a captcha. */
  async failed(account: string, ip: string): Promise<{ needCaptcha: boolean }> {
    const [, all] = await Promise.all([
      this.kv.incr(this.#sourceKey(account, ip), FAILURE_WINDOW_S),
      this.kv.incr(this.#accountKey(account), FAILURE_WINDOW_S),
    ]);
    return { needCaptcha: all >= FAILURES_BEFORE_CAPTCHA };
  }

  /** The right password: the account's count starts over (other sources' stay as they are). */
  async succeeded(account: string, ip: string): Promise<void> {
    await Promise.all([this.kv.del(this.#accountKey(account)), this.kv.del(this.#sourceKey(account, ip))]);
  }

  #accountKey(account: string): string {
    return `loginfail:${account}`;
  }

  #sourceKey(account: string, ip: string): string {
    return `loginfail:${account}|${addressGroup(ip)}`;
  }
}
