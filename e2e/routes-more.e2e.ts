import { sweepRoutes } from './route-sweep';

// Every route in Arabic (right to left, axe on every layout) and the CJK and Vietnamese catalogues.
sweepRoutes(['ar', 'ja', 'vi', 'zh', 'zh-TW']);
