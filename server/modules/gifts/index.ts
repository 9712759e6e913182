// The gifts module's public face: the gift wall, sending gifts in a live room, what a host received.
export { giftRoutes } from './routes';
export { GiftService, MAX_COMBO } from './service';
export { GiftCatalogue } from './catalogue';
export { staffGiftRoutes } from './staff-routes';
