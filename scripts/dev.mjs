// Development: rebuild the browser bundle on change, restart the server (tsx watch) on change.
import { spawn } from 'node:child_process';

const procs = [
  spawn('node', ['scripts/build.mjs', '--watch'], { stdio: 'inherit' }),
  spawn('npx', ['tsx', 'watch', '--clear-screen=false', 'server/main.ts'], { stdio: 'inherit' }),
];
const stop = () => procs.forEach((p) => p.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
