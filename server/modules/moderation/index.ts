// The moderation module's public face: sensitive words, and their lists as staff edit them.
export { SensitiveWords } from './sensitive';
export { WordLists } from './lists';
export { moderationRoutes } from './routes';
