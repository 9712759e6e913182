import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema, okSchema } from '../../../common/api/envelope';
import {
  avatarQuery,
  profileBody,
  publicProfileSchema as profile,
  userParams,
  usersErrors as errors,
} from '../../../common/api/users';
import { AppError } from '../../../common/errors';
import { requireAuth } from '../auth';
import { AVATAR_MAX_BYTES } from './avatar';
import type { UsersService } from './service';

export function usersRoutes(users: UsersService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/users/:shortId',
      {
        schema: {
          tags: ['users'],
          summary: 'A user’s public profile (spec getinfo)',
          params: userParams,
          response: { 200: okSchema(profile), ...errors },
        },
      },
      async (req) => {
        const p = await users.byShortId(req.params.shortId);
        if (!p) throw new AppError('not_found');
        return { status: 200 as const, data: p };
      },
    );

    // Photos arrive as the raw request body with their image type.
    app.addContentTypeParser(
      ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
      { parseAs: 'buffer', bodyLimit: AVATAR_MAX_BYTES },
      (_req, body, done) => {
        done(null, body);
      },
    );

    app.post(
      '/api/v1/me/avatar',
      {
        bodyLimit: AVATAR_MAX_BYTES,
        schema: {
          tags: ['users'],
          summary:
            'Upload a photo (JPEG, PNG, WebP or GIF under 5 MB) and the square to crop; becomes a 256 px avatar',
          querystring: avatarQuery,
          response: { 200: okSchema(profile), ...errors, 413: errorSchema },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        if (!Buffer.isBuffer(req.body)) throw new AppError('validation_failed', { field: 'image' });
        return { status: 200 as const, data: await users.setAvatar(uid, req.body, req.query) };
      },
    );

    app.post(
      '/api/v1/me/profile',
      {
        schema: {
          tags: ['users'],
          summary: 'Edit one’s own profile',
          body: profileBody,
          response: { 200: okSchema(profile), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: await users.update(uid, req.body) };
      },
    );
  };
}
