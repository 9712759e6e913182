// The news module's public face: articles for readers, and the staff's news desk.
export { newsRoutes } from './routes';
export { NewsService } from './service';
export { NewsDesk } from './desk';
export { staffNewsRoutes } from './staff-routes';
