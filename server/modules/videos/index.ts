// The short videos module's public face (issue 23 item 1): uploads, clips, the feed, likes,
// views, comments and the staff's "wonderful" mark.
export { VideoService, VIDEO_LIMITS, type ShortVideo } from './service';
export { videoRoutes } from './routes';
