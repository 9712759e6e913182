// The festival programme module's public face (issue 23 item 2).
export { FestivalService } from './service';
export { festivalRoutes } from './routes';
