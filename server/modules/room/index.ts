// The room module's public face: a live room's people (cards, audience, top fans), the host's
// blocks (RoomService.isBlocked is the one owner of that rule) and reports.
export { roomRoutes } from './routes';
export { RoomService, type PersonalCard } from './service';
