// Bundled for the browser by e2e/interop.e2e.ts: standard WHIP and WHEP client libraries.
import { WebRTCPlayer } from '@eyevinn/webrtc-player';
import { WHIPClient } from '@eyevinn/whip-web-client';

Object.assign(window, { WHIPClient, WebRTCPlayer });
