// The chat module's public face: what people say in a live room.
export { ChatService, type ChatLine, CHAT_LIMIT, MAX_CHAT_CHARS, MAX_MENTIONS } from './service';
