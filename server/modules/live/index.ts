// The live module's public face: broadcasts, their media (WHIP/WHEP) and the live directory.
export { LiveDirectory, type LiveEntry } from './directory';
export { existingLive } from './existing';
export { registerMediaRoutes } from './media-routes';
export { registerHlsRoutes } from './hls-routes';
export type { LiveRow, LiveStatus } from './repo';
export { liveInfo } from './info';
export { liveRoutes } from './routes';
export { DemoLives } from './demo';
export type { LiveInfo } from '../../../common/api/live';
export { LiveService, type HostState } from './service';
export { DEFAULT_VIEWER_LIMITS } from './viewers';
export {
  MediaCluster,
  MemoryNodeRegistry,
  RedisNodeRegistry,
  VIEWERS_PER_CORE,
  type MediaNode,
  type NodeRegistry,
} from './cluster';
export { nodeName } from './lease';
export { turnConfig } from './turn';
export { goLiveCounts } from './stats';
export { ObsPolicy } from './obs-policy';
export { obsRoutes } from './obs-routes';
