// The moderation module's public face: sensitive words.
export { SensitiveWords } from './sensitive';
