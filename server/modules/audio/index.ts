// The audio rooms module's public face (issue 23 item 3).
export { AudioService } from './service';
export { audioRoutes } from './routes';
