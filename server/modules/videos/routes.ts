import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  clipBody,
  commentBody,
  commentParams,
  commentSchema,
  commentsAnswer,
  commentsQuery,
  likeAnswer,
  shortVideoSchema,
  uploadQuery,
  videoErrors as errors,
  videoParams,
  videosAnswer,
  videosQuery,
  viewAnswer,
  wonderfulBody,
} from '../../../common/api/videos';
import { AppError } from '../../../common/errors';
import { SHORT_MAX_BYTES } from '../../../common/videos';
import { requireAuth, type MetaReader } from '../auth';
import type { StaffGuard } from '../staff';
import type { VideoService } from './service';

const tags = ['videos'];
/** What an upload may be sent as: the file's own type (video/…), or bytes with no type. */
const UPLOAD_TYPES = /^(video\/[\w.+-]+|application\/octet-stream)\s*(;|$)/i;

/** Short videos' endpoints: thin, the rules are the service's. */
export function videoRoutes(deps: {
  videos: VideoService;
  meta: MetaReader;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { videos, staff } = deps;
  // Staff who keep the site safe take down anyone's video or comment.
  const who = async (req: FastifyRequest) => {
    const { uid, sessionId } = requireAuth(req);
    return { uid, staff: await staff.may(uid, sessionId, 'safety.act') };
  };
  return async (app) => {
    // The upload's body reaches the service as the stream it is (up to 100 MB, never in memory).
    app.addContentTypeParser(UPLOAD_TYPES, (_req, payload, done) => done(null, payload));

    app.get(
      '/api/v1/videos',
      {
        schema: {
          tags,
          summary: 'Short videos: hot, wonderful (staff marked) or new; uid: one person’s, newest first',
          querystring: videosQuery,
          response: { 200: okSchema(videosAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await videos.list(req.query, req.auth?.uid ?? null) }),
    );

    app.get(
      '/api/v1/videos/:id',
      {
        schema: {
          tags,
          summary: 'A short video; its author also sees it while processing (progress) or failed (error)',
          params: videoParams,
          response: { 200: okSchema(shortVideoSchema), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await videos.get(req.params.id, req.auth?.uid ?? null) }),
    );

    app.post(
      '/api/v1/videos',
      {
        schema: {
          tags,
          summary: `Upload a short video (the body is the file: video/*, ≤ ${SHORT_MAX_BYTES / 1024 / 1024} MB, ≤ 60 s); transcoded to H.264/AAC 720p`,
          querystring: uploadQuery,
          response: { 200: okSchema(shortVideoSchema), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const declared = Number(req.headers['content-length'] ?? 0);
        if (declared > SHORT_MAX_BYTES) throw new AppError('payload_too_large', { max: SHORT_MAX_BYTES });
        // Any other type was parsed by another parser (text, JSON): not a video.
        if (!(req.body instanceof Readable)) throw new AppError('short_unreadable');
        return { status: 200 as const, data: await videos.upload(uid, req.query.title, req.body) };
      },
    );

    app.post(
      '/api/v1/videos/clip',
      {
        schema: {
          tags,
          summary: 'Clip a highlight (1–60 s) of one’s own replay; cut on keyframes, H.264 copied',
          body: clipBody,
          response: { 200: okSchema(shortVideoSchema), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await videos.clip(requireAuth(req).uid, req.body) }),
    );

    app.delete(
      '/api/v1/videos/:id',
      {
        schema: {
          tags,
          summary: 'Delete a short video (its author or staff)',
          params: videoParams,
          response: { 200: okSchema(videoParams), ...errors },
        },
      },
      async (req) => {
        await videos.remove(req.params.id, await who(req));
        return { status: 200 as const, data: { id: req.params.id } };
      },
    );

    for (const method of ['PUT', 'DELETE'] as const)
      app.route({
        method,
        url: '/api/v1/videos/:id/like',
        schema: {
          tags,
          summary: method === 'PUT' ? 'Like a short video' : 'Take a like back',
          params: videoParams,
          response: { 200: okSchema(likeAnswer), ...errors },
        },
        handler: async (req) => ({
          status: 200 as const,
          data: await videos.like(req.params.id, requireAuth(req).uid, method === 'PUT'),
        }),
      });

    app.post(
      '/api/v1/videos/:id/view',
      {
        schema: {
          tags,
          summary: 'The reader watched it (counted once a day per viewer)',
          params: videoParams,
          response: { 200: okSchema(viewAnswer), ...errors },
        },
      },
      async (req) => {
        const meta = deps.meta(req);
        const viewer = req.auth ? `u${req.auth.uid}` : meta.deviceId ? `d${meta.deviceId}` : `i${meta.ip}`;
        return { status: 200 as const, data: await videos.view(req.params.id, viewer) };
      },
    );

    app.get(
      '/api/v1/videos/:id/comments',
      {
        schema: {
          tags,
          summary: 'Comments, newest first (cursor: the last id seen)',
          params: videoParams,
          querystring: commentsQuery,
          response: { 200: okSchema(commentsAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await videos.comments(req.params.id, req.query.cursor) }),
    );

    app.post(
      '/api/v1/videos/:id/comments',
      {
        schema: {
          tags,
          summary: 'Comment (the live chat’s rules: 200 characters, masked words, blocks, slow down)',
          params: videoParams,
          body: commentBody,
          response: { 200: okSchema(commentSchema), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await videos.comment(req.params.id, requireAuth(req).uid, req.body.text),
      }),
    );

    app.delete(
      '/api/v1/videos/:id/comments/:cid',
      {
        schema: {
          tags,
          summary: 'Delete a comment (whoever wrote it, the video’s author or staff)',
          params: commentParams,
          response: { 200: okSchema(commentParams), ...errors },
        },
      },
      async (req) => {
        await videos.removeComment(req.params.id, req.params.cid, await who(req));
        return { status: 200 as const, data: req.params };
      },
    );

    app.put(
      '/api/v1/staff/videos/:id/wonderful',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: mark a short video as wonderful (or not)',
          params: videoParams,
          body: wonderfulBody,
          response: { 200: okSchema(shortVideoSchema), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        const after = { wonderful: req.body.wonderful };
        const video = await videos.setWonderful(req.params.id, req.body.wonderful, (tx) =>
          staff.audit(actor, 'video.wonderful', `video:${req.params.id}`, undefined, after, null, tx),
        );
        return { status: 200 as const, data: video };
      },
    );
  };
}
