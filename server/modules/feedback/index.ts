// The feedback module's public face: the form's endpoint and the staff's inbox.
export { feedbackRoutes } from './routes';
export { FeedbackService } from './service';
