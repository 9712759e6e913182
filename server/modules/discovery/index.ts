// The discovery module's public face: explore's lists, the hot ranking's read model, hosts' marks.
export { discoveryRoutes } from './routes';
export { DiscoveryService, REFRESH_MS as EXPLORE_REFRESH_MS } from './service';
