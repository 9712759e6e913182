// The staff module's public face: members, roles and their second factor (the guard every staff
// endpoint asks), the audit log, and the console's own endpoints.
export { StaffService, type StaffActor, type StaffGuard } from './service';
export { Totp } from './totp';
export { staffRoutes } from './routes';
