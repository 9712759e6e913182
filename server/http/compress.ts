import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/** The best encoding the client accepts (brotli, then gzip). */
export function pickEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  const accepted = acceptEncoding.toLowerCase();
  if (/\bbr\b/.test(accepted) && !/\bbr;q=0(\.0+)?\b/.test(accepted)) return 'br';
  if (/\bgzip\b/.test(accepted) && !/\bgzip;q=0(\.0+)?\b/.test(accepted)) return 'gzip';
  return 'identity';
}

/**
 * A response body with its compressed forms made on first use and kept (rendered-page cache).
 * Bodies that will be served many times are worth brotli's slowest, smallest setting.
 */
export class CompressedBody {
  #br: Buffer | undefined;
  #gzip: Buffer | undefined;

  constructor(
    readonly text: string,
    readonly reused = false,
  ) {}

  get(encoding: Encoding): string | Buffer {
    if (encoding === 'br') {
      this.#br ??= brotliCompressSync(this.text, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: this.reused ? 11 : 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: this.text.length,
        },
      });
      return this.#br;
    }
    if (encoding === 'gzip') {
      this.#gzip ??= gzipSync(this.text, { level: this.reused ? 9 : 6 });
      return this.#gzip;
    }
    return this.text;
  }
}
