// The wallet module's public face: converting diamonds, collectibles on show, cash-outs.
export { CashoutService, type WithdrawalAction } from './cashout';
export { walletRoutes } from './routes';
export { WalletService } from './service';
