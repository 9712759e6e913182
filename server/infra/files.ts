import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync } from 'node:fs';
import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * Where uploaded files go. Embedded default: a folder under DATA_DIR served at /uploads/; the
 * production twin (S3-compatible object storage behind a CDN, server/infra/s3-files.ts)
 * implements the same members.
 */
export interface FileStore {
  /** Stores the bytes under a content-hashed name and returns the public URL (a path here, or a full URL). */
  put(folder: string, bytes: Buffer, extension: string): Promise<string>;
  /** Stores a file (a video: too large to hold in memory) under a content-hashed name; the file is left where it was. */
  putFile(folder: string, path: string, extension: string): Promise<string>;
  /** The local folder served at /uploads/ (empty for object storage: nothing is served from here). */
  readonly root: string;
}

/** The first 32 hex digits of the SHA-256 of a file, read as a stream. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex').slice(0, 32);
}

export function hashBytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** The content types of the files we store, by extension. */
export const CONTENT_TYPES: Record<string, string> = {
  webp: 'image/webp',
  png: 'image/png',
  jpg: 'image/jpeg',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

export function localFileStore(root: string): FileStore {
  mkdirSync(root, { recursive: true });
  return {
    root,
    async put(folder, bytes, extension) {
      const name = `${hashBytes(bytes)}.${extension}`;
      await mkdir(join(root, folder), { recursive: true });
      await writeFile(join(root, folder, name), bytes);
      return `/uploads/${folder}/${name}`;
    },
    async putFile(folder, path, extension) {
      const name = `${await hashFile(path)}.${extension}`;
      await mkdir(join(root, folder), { recursive: true });
      // Copied under a temporary name and renamed: a reader never sees half a file.
      const tmp = join(root, folder, `.${name}.${process.pid}.tmp`);
      await copyFile(path, tmp);
      await rename(tmp, join(root, folder, name));
      return `/uploads/${folder}/${name}`;
    },
  };
}
