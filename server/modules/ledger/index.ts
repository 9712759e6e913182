// The ledger module's public face: balances, transactions and their invariants (docs/money.md).
export { GiftBatcher, type GiftOrder, type GiftReceipt } from './gift-batcher';
export { checkInvariants } from './invariants';
export { checkAmount, Ledger, type LockedAccounts } from './ledger';
export type { Currency } from './repo';
export { ledgerRoutes } from './routes';
export { WalletView, type WalletPage } from './wallet-view';
export { giftCounts } from './stats';
