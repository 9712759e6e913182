// The social module's public face: following.
export { socialRoutes } from './routes';
export { RELATION, SocialService, type FollowedHook, type FollowState } from './service';
