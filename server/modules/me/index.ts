// The me module's public face: the signed-in person's own view (/me). Editing one's profile and
// avatar stays with the users module (/me/profile, /me/avatar).
export { meRoutes } from './routes';
export { MeService, type AboutMe, type MeAnswer } from './service';
