import { useMemo, useRef } from 'react';

/**
 * The idempotency key of one thing the user means to do (buy this package, convert this amount):
 * the same key while they retry it, a new one once it succeeded or they changed what they ask.
 */
export function useIntentKey(): { current: () => string; renew: () => void } {
  const key = useRef<string | null>(null);
  return useMemo(
    () => ({
      current: () => (key.current ??= crypto.randomUUID()),
      renew: () => {
        key.current = null;
      },
    }),
    [],
  );
}
