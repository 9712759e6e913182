import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where uploaded files go. Embedded default: a folder under DATA_DIR served at /uploads/; the
 * production twin (object storage behind a CDN) implements the same two members.
 */
export interface FileStore {
  /** Stores the bytes under a content-hashed name and returns the public URL path. */
  put(folder: string, bytes: Buffer, extension: string): Promise<string>;
  readonly root: string;
}

export function localFileStore(root: string): FileStore {
  mkdirSync(root, { recursive: true });
  return {
    root,
    async put(folder, bytes, extension) {
      const name = `${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}.${extension}`;
      await mkdir(join(root, folder), { recursive: true });
      await writeFile(join(root, folder, name), bytes);
      return `/uploads/${folder}/${name}`;
    },
  };
}
