// The staff module's public face: who is staff (review pages, chat moderation).
export { isStaff, requireStaff } from './staff';
