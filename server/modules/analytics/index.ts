// The analytics module's public face: the collector, the roll-ups and the staff's numbers.
export { analyticsRoutes } from './routes';
export { AnalyticsService } from './service';
