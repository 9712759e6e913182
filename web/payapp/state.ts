import type { Locale } from '../../common/locales';

/** What the server tells the payment app about the page (embedded as JSON, read before hydrating). */
export interface PayAppState {
  screen: 'recharge' | 'cashout';
  locale: Locale;
  siteName: string;
  /** Back from the provider's checkout: the order to show (recharge only). */
  order: string | null;
  /** The buyer cancelled at the checkout. */
  cancelled: boolean;
}

export const PAYAPP_STATE_ID = '__payapp';

/** Order ids as the server makes them (server/modules/payments/service.ts). */
export const ORDER_ID = /^po_[A-Za-z0-9]{20,40}$/;
