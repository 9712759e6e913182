import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { App } from './app/App';
import { loadChunk } from './app/chunks';
import { reportScriptErrors } from './app/error-report';
import { PAGES } from './app/pages';
import { restoreProse, STATE_ELEMENT_ID, type AppState } from './app/state';
import { MESSAGE_LOADERS } from './i18n/load';
import { watchLiveLinks } from './live/swipe';

reportScriptErrors();
// The list a live is opened from, for swiping between lives on the live page.
watchLiveLinks();

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
