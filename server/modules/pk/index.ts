// The PK module's public face: battles between two live hosts (issue 21), their invitations,
// rounds, points from the gifts their rooms send, and each host's record.
export { PkService, PK_TICK_MS } from './service';
export { pkRoutes } from './routes';
