import { isIgnorableScriptError } from './chunks';

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
  // A beacon carries the session cookie, and a signed-in session's POST needs a CSRF token that a
  // beacon cannot send; a report needs no identity, so it goes without cookies (and so without CSRF),
  // and keepalive lets it outlive a page that is unloading, as a beacon would.
  void fetch('/api/v1/client-errors', {
    method: 'POST',
    keepalive: true,
    credentials: 'omit',
    headers: { 'content-type': 'application/json' },
    body,
  }).catch(() => undefined);
}

/** Sends the page's uncaught errors and rejections to the server's log (the site and the payment app). */
export function reportScriptErrors(): void {
  window.addEventListener('error', (e) =>
    report(e.message || 'error', (e.error as Error | undefined)?.stack),
  );
  window.addEventListener('unhandledrejection', (e) => {
    const reason = e.reason as { message?: string; stack?: string } | undefined;
    report(reason?.message ?? String(e.reason), reason?.stack);
  });
}
