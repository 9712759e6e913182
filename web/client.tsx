import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { App } from './app/App';
import { isIgnorableScriptError, loadChunk } from './app/chunks';
import { PAGES } from './app/pages';
import { restoreProse, STATE_ELEMENT_ID, type AppState } from './app/state';
import { MESSAGE_LOADERS } from './i18n/load';

function report(message: string, stack?: string) {
  if (isIgnorableScriptError(message)) {
    // Spec §8: cross-origin 'Script error.' and 'Illegal invocation' noise is only logged.
    console.info('[ignored script error]', message);
    return;
  }
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
  const el = document.getElementById(STATE_ELEMENT_ID);
  if (!el?.textContent) return;
  const parsed = JSON.parse(el.textContent) as AppState;
  const state: AppState = { ...parsed, data: restoreProse(parsed.data, document) };
  const [mod, messages] = await Promise.all([
    loadChunk(PAGES[state.route.id], location.pathname),
    loadChunk(MESSAGE_LOADERS[state.locale], location.pathname),
  ]);
  const root = document.getElementById('root');
  if (!root) return;
  // Hydrating inside a transition lets React yield to the browser every few milliseconds instead
  // of holding the main thread for the whole tree (one long task on slow phones).
  startTransition(() => {
    hydrateRoot(root, <App state={state} messages={messages.default} Page={mod.default} mode="browser" />);
  });
}

void start();
