// Keeping the site safe: the reports queue, warnings, suspensions and bans (the one owner of an
// account's standing, which sign-in, going live and cash-out ask).
export { SafetyService } from './service';
export { safetyRoutes } from './routes';
export { LiveMonitor, type OnAir } from './monitor';
export { PeopleLookup } from './people';
