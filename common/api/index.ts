// The API contract: the zod schemas of every request and answer of /api/v1 and of the /ws
// protocol, one file per resource. The server's routes (and so /api/openapi.json) use them; the
// web derives its types from them with type-only imports, so zod stays out of the client bundle.
export * from './envelope';
export * from './auth';
export * from './users';
export * from './news';
export * from './live';
export * from './explore';
export * from './leaderboard';
export * from './notifications';
export * from './search';
export * from './room';
export * from './social';
export * from './gifts';
export * from './wallet';
export * from './payments';
export * from './pk';
export * from './feedback';
export * from './analytics';
export * from './videos';
export * from './festival';
export * from './audio';
export * from './ws';
export * from './staff';
export * from './safety';
export * from './content';
