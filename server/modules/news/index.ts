// The news module's public face.
export { newsRoutes } from './routes';
export { NewsService } from './service';
