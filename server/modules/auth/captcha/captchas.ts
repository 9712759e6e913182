import { randomInt } from 'node:crypto';
import { AppError } from '../../../../common/errors';
import type { Kv } from '../../../infra/kv';
import { enforceLimits, LIMITS } from '../../../infra/ratelimit';
import type { RequestMeta } from '../meta';
import { newToken } from '../crypto';
import { networkPrefix } from '../../../infra/networks';
import { audioAnswer, renderAudioCaptcha } from './audio';
import { renderCaptcha } from './image';

/** A captcha is answered within 5 minutes, once (checkCaptcha takes it). */
export const CAPTCHA_TTL_S = 300;

/**
 * Image captchas and their spoken alternative. The answer is kept under `captcha:<id>` (lower
 * case); asking for the audio of an id replaces its answer with the spoken digits, so either
 * the image or the audio is answered, whichever the person used last.
 */
export class Captchas {
  constructor(
    private readonly kv: Kv,
    private readonly limitScale = 1,
  ) {}

  /** Per address and per network: a /24 holds 256 addresses, a /64 billions. */
  #limit(meta: RequestMeta): Promise<void> {
    return enforceLimits(
      this.kv,
      [
        { limit: LIMITS.captchaIp, key: meta.ip },
        { limit: LIMITS.captchaPrefix, key: networkPrefix(meta.ip) },
      ],
      this.limitScale,
    );
  }

  /** A new image captcha as a PNG data URL. */
  async create(meta: RequestMeta): Promise<{ id: string; image: string }> {
    await this.#limit(meta);
    const { text, png } = await renderCaptcha();
    const id = newToken();
    await this.kv.set(`captcha:${id}`, text.toLowerCase(), CAPTCHA_TTL_S);
    return { id, image: `data:image/png;base64,${png.toString('base64')}` };
  }

  /**
   * The spoken alternative for a captcha still open (WAV); its answer becomes the digits. Asked
   * again for the same captcha (a browser's range request or replay), it says the same digits.
   */
  async audio(id: string, meta: RequestMeta): Promise<Buffer> {
    await this.#limit(meta);
    const answer = await this.kv.get(`captcha:${id}`);
    if (!answer) throw new AppError('wrong_captcha');
    const [digits, seed] = ((await this.kv.get(`captcha-audio:${id}`)) ?? '').split(':');
    if (digits && seed && digits === answer) return renderAudioCaptcha(meta.locale, digits, Number(seed));
    const fresh = audioAnswer();
    const freshSeed = randomInt(2 ** 31);
    await this.kv.set(`captcha:${id}`, fresh, CAPTCHA_TTL_S);
    await this.kv.set(`captcha-audio:${id}`, `${fresh}:${freshSeed}`, CAPTCHA_TTL_S);
    return renderAudioCaptcha(meta.locale, fresh, freshSeed);
  }
}
