// The payment app's browser entry (spec §2): hydrates the recharge or cash-out screen the server
// rendered, with the page language's catalogue (a precompiled chunk shared with nothing else).
import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { isIgnorableScriptError } from '../app/chunks';
import { MESSAGE_LOADERS } from '../i18n/load';
import { PayApp } from './PayApp';
import { PAYAPP_STATE_ID, type PayAppState } from './state';

function report(message: string, stack?: string) {
  if (isIgnorableScriptError(message)) return;
  const body = JSON.stringify({
    message: message.slice(0, 500),
    stack: stack?.slice(0, 2000),
    url: location.pathname,
  });
  navigator.sendBeacon('/api/v1/client-errors', new Blob([body], { type: 'application/json' }));
}
window.addEventListener('error', (e) => report(e.message || 'error', (e.error as Error | undefined)?.stack));
window.addEventListener('unhandledrejection', (e) => {
  const reason = e.reason as { message?: string; stack?: string } | undefined;
  report(reason?.message ?? String(e.reason), reason?.stack);
});

async function start() {
  const el = document.getElementById(PAYAPP_STATE_ID);
  const root = document.getElementById('root');
  if (!el?.textContent || !root) return;
  const state = JSON.parse(el.textContent) as PayAppState;
  const messages = (await MESSAGE_LOADERS[state.locale]()).default;
  startTransition(() => {
    hydrateRoot(root, <PayApp state={state} messages={messages} />);
  });
}

void start();
