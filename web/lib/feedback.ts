// How any part of the site shows a toast, a confirm dialog or the spinner; the provider that draws
// them is ui/feedback.tsx.
import { createContext, useContext } from 'react';

/** Spec §9: toasts show for 3000 ms unless told otherwise. */
export const TOAST_MS = 3000;

export interface Feedback {
  toast: (message: string, ms?: number) => void;
  /** Spec §8: a confirm dialog, titled 'Tip' unless told otherwise. Resolves true on Confirm. */
  confirm: (message: string, opts?: { title?: string }) => Promise<boolean>;
  /** Spec §4: the full-screen spinner; hidden after `hideAfterMs` when given. */
  showSpinner: (hideAfterMs?: number) => void;
  hideSpinner: () => void;
}

export const FeedbackContext = createContext<Feedback | null>(null);

export function useFeedback(): Feedback {
  const f = useContext(FeedbackContext);
  if (!f) throw new Error('useFeedback outside FeedbackProvider');
  return f;
}
