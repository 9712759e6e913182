// The collectibles module's public face: badges awarded and owned (the wallet shows them).
export { collectibles } from './collectibles';
export type { OwnedCollectible } from './repo';
