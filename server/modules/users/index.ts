// The users module's public face: profiles and display names (the module owns the users table's
// profile columns; others ask UsersService.names for nicknames).
export { seedDemoUsers } from './demo';
export { usersRoutes } from './routes';
export { UsersService, type ProfileInput, type PublicProfile } from './service';
