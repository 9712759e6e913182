import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CONTENT_TYPES, hashBytes, hashFile, type FileStore } from './files';

export interface S3Options {
  /** The S3 API's address (MinIO, Ceph, R2, a local s3rver…); unset for AWS itself. */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where readers fetch the objects (a CDN in front of the bucket), without a trailing slash. */
  publicUrl: string;
}

/**
 * The file store's production twin: the same content-hashed names in an S3-compatible bucket, so
 * that every node serves every upload (a local folder is only on the node that took it). Objects
 * are immutable: the name is the hash, so one already there is not sent again.
 */
export function s3FileStore(opts: S3Options): FileStore {
  const client = new S3Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
    // A file is sent as it is, not in aws-chunked framing with a trailing checksum (the SDK's
    // default for streams): not every S3-compatible server reads that framing, and one that does
    // not stores the framing as the file's bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const base = opts.publicUrl.replace(/\/+$/, '');
  const exists = async (key: string) => {
    try {
      await client.send(new HeadObjectCommand({ Bucket: opts.bucket, Key: key }));
      return true;
    } catch {
      return false;
    }
  };
  const common = (extension: string) => ({
    Bucket: opts.bucket,
    ContentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    CacheControl: 'public, max-age=31536000, immutable',
  });
  return {
    root: '',
    async put(folder, bytes, extension) {
      const key = `${folder}/${hashBytes(bytes)}.${extension}`;
      if (!(await exists(key)))
        await client.send(new PutObjectCommand({ ...common(extension), Key: key, Body: bytes }));
      return `${base}/${key}`;
    },
    async putFile(folder, path, extension) {
      const key = `${folder}/${await hashFile(path)}.${extension}`;
      if (!(await exists(key)))
        await client.send(
          new PutObjectCommand({
            ...common(extension),
            Key: key,
            Body: createReadStream(path),
            ContentLength: (await stat(path)).size,
          }),
        );
      return `${base}/${key}`;
    },
  };
}
