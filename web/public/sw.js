// The service worker of Web Push (issue 19 item 6): shows a followed host's go-live push and, on
// a click, focuses a tab already on that live or opens it. No fetch handler: pages load as they
// always do. Plain script, no imports and no eval, so the site's CSP (worker-src 'self') holds.
self.addEventListener('install', () => {
  // A new version takes over at once: it only shows notifications.
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    return;
  }
  if (typeof data.title !== 'string') return;
  event.waitUntil(
    self.registration.showNotification(data.title, {
      body: typeof data.body === 'string' ? data.body : '',
      icon: typeof data.icon === 'string' ? data.icon : '/favicon.svg',
      badge: '/favicon.svg',
      // One notification per host: a newer one replaces it.
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      data: { url: typeof data.url === 'string' ? data.url : '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  // Only this site's own pages (the URL comes from this site's server, but is checked anyway).
  const target = new URL(event.notification.data?.url ?? '/', self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    (async () => {
      const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const same = open.find((c) => new URL(c.url).pathname === target.pathname);
      if (same) return same.focus();
      return self.clients.openWindow(target.href);
    })(),
  );
});
