// The discovery module's public face: explore's lists, the hot ranking's read model, hosts' marks,
// and search for people and live rooms.
export { discoveryRoutes } from './routes';
export { DiscoveryService, REFRESH_MS as EXPLORE_REFRESH_MS } from './service';
export { searchRoutes } from './search-routes';
export { SearchService } from './search-service';
export { WatchHistory } from './watched';
