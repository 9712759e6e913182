import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';

/** Where generated secrets are kept, under DATA_DIR. */
export const SECRETS_FILE = 'secrets.json';

/**
 * Secrets with no safe default: when one is needed and not configured, it is generated on first
 * start and kept in DATA_DIR, never taken from a value written in the source (anyone can read
 * that one and, for the sandbox, sign a paid webhook).
 */
const GENERATED: {
  name: 'SANDBOX_PAY_SECRET' | 'APP_SIGN_KEY' | 'MEDIA_RELAY_SECRET' | 'ANALYTICS_KEY' | 'STAFF_TOTP_KEY';
  needed: (c: Config) => boolean;
}[] = [
  { name: 'SANDBOX_PAY_SECRET', needed: (c) => c.PAYMENT_PROVIDER === 'sandbox' },
  // Nodes of one machine share it through the file; nodes on several machines are given it.
  { name: 'MEDIA_RELAY_SECRET', needed: (c) => c.MEDIA_NODE_URL !== undefined },
  // Only for `npm start` on one machine: elsewhere the key is built into apps, so it is chosen and
  // configured on purpose (unset, app requests are refused; server/http/app-clients.ts).
  { name: 'APP_SIGN_KEY', needed: (c) => c.APP_ENV === 'development' },
  // The key of analytics' identifier hashes: without it a hash of an e-mail address is the address.
  { name: 'ANALYTICS_KEY', needed: () => true },
  // Seals staff's authenticator secrets: the database alone must not be enough to make codes.
  { name: 'STAFF_TOTP_KEY', needed: () => true },
];

type Stored = Partial<Record<(typeof GENERATED)[number]['name'], string>>;

/**
 * The configuration with every needed secret that was not configured taken from
 * DATA_DIR/secrets.json (mode 0600), which is created on first start. Nodes of one machine that
 * share DATA_DIR share the file and so the secrets; nodes on several machines must be given them
 * (docs/operations.md).
 */
export function withStoredSecrets(config: Config): Config {
  const missing = GENERATED.filter((g) => g.needed(config) && !config[g.name]).map((g) => g.name);
  if (!missing.length) return config;
  const stored = storedSecrets(config.DATA_DIR, missing);
  return { ...config, ...Object.fromEntries(missing.map((name) => [name, stored[name]])) };
}

function storedSecrets(dir: string, names: (keyof Stored)[]): Stored {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, SECRETS_FILE);
  let stored = readSecrets(file);
  if (stored === null) {
    // Written whole to a file of its own, then linked into place: a link fails if another node
    // on this machine got there first, and then its file is the one everybody uses.
    publish(file, fresh(names, {}), (tmp) => {
      try {
        linkSync(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    });
    stored = readSecrets(file);
  }
  if (!stored) throw new Error(`${file} could not be read after it was written`);
  const have = stored;
  if (names.some((n) => !have[n])) {
    // A secret this version needs and the file, from an older one, lacks: added in place.
    publish(file, fresh(names, have), (tmp) => renameSync(tmp, file));
    stored = readSecrets(file) ?? {};
  }
  return stored;
}

function fresh(names: (keyof Stored)[], old: Stored): Stored {
  const next: Stored = { ...old };
  for (const n of names) next[n] ??= randomBytes(32).toString('base64url');
  return next;
}

/** Writes the secrets to a temporary file (0600) beside `file` and hands it to `place`. */
function publish(file: string, secrets: Stored, place: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    place(tmp);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // renamed into place
    }
  }
}

/** The stored secrets, or null when there is no file yet. Fails (at start) on a damaged file. */
function readSecrets(file: string): Stored | null {
  let text: string;
  try {
    // Readable by the site's own user only, even if someone loosened it.
    if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as unknown;
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Object.values(parsed).some((v) => typeof v !== 'string' || v.length < 16)
  )
    throw new Error(`${file}: expected a JSON object of secrets (strings of 16 characters or more)`);
  return parsed;
}
