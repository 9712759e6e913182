// The payment app's browser entry (spec §2): hydrates the recharge or cash-out screen the server
// rendered, with the page language's catalogue (a precompiled chunk shared with nothing else).
import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { reportScriptErrors } from '../app/error-report';
import { MESSAGE_LOADERS } from '../i18n/load';
import { PayApp } from './PayApp';
import { PAYAPP_STATE_ID, type PayAppState } from './state';

reportScriptErrors();

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
