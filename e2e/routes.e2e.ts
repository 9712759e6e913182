import { sweepRoutes } from './route-sweep';

// Every route in English (axe on every page) and four more languages; routes-more.e2e.ts has the rest.
sweepRoutes(['en', 'de', 'es', 'hi', 'id']);
