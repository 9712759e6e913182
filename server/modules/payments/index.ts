// The payments module's public face: recharges through a provider, refunds and chargebacks.
export type { PaymentProvider } from './provider';
export { paymentRoutes } from './routes';
export { SandboxProvider, sign } from './sandbox';
export { sandboxPage } from './sandbox-page';
export { PaymentService } from './service';
export { refuseCashoutWhileShortfall } from './shortfall';
export { StripeProvider } from './stripe';
export { rechargeCounts } from './stats';
