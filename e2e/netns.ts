// A network that blocks UDP, for browser tests: a Linux network namespace joined to this machine
// by a veth pair, whose firewall (nftables) drops every UDP packet it would send. A browser run
// inside it reaches this machine over TCP only (as behind a firewall that allows web traffic
// only). Needs root, iproute2 and nftables (the test command installs them where missing).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BlockedNetwork {
  /** This machine's address as seen from inside. */
  hostIp: string;
  /** The namespace's own address. */
  innerIp: string;
  /** A Chromium that runs inside the namespace (a launcher script for playwright's executablePath). */
  chromium: string;
  /** The namespace's firewall rules, as nftables lists them. */
  rules(): string;
  close(): void;
}

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

export function blockedNetwork(chromiumPath: string): BlockedNetwork {
  const n = process.pid % 250;
  const ns = `beamly-udp-${process.pid}`;
  const [outer, inner] = [`bu${process.pid}h`, `bu${process.pid}n`];
  const hostIp = `10.231.${n}.1`;
  const innerIp = `10.231.${n}.2`;
  const close = () => {
    for (const args of [
      ['netns', 'del', ns],
      ['link', 'del', outer],
    ])
      try {
        run('ip', args);
      } catch {
        // not there
      }
  };
  close();
  run('ip', ['netns', 'add', ns]);
  run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', inner]);
  run('ip', ['link', 'set', inner, 'netns', ns]);
  run('ip', ['addr', 'add', `${hostIp}/30`, 'dev', outer]);
  run('ip', ['link', 'set', outer, 'up']);
  run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${innerIp}/30`, 'dev', inner]);
  run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up']);
  run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  run(
    'ip',
    ['netns', 'exec', ns, 'nft', '-f', '-'],
    `table inet beamly {
  chain out {
    type filter hook output priority 0; policy accept;
    meta l4proto udp drop
  }
  chain in {
    type filter hook input priority 0; policy accept;
    meta l4proto udp drop
  }
}
`,
  );
  const launcher = join(mkdtempSync(join(tmpdir(), 'beamly-netns-')), 'chromium');
  writeFileSync(launcher, `#!/bin/sh\nexec ip netns exec ${ns} ${chromiumPath} "$@"\n`);
  chmodSync(launcher, 0o755);
  return {
    hostIp,
    innerIp,
    chromium: launcher,
    rules: () => run('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset']),
    close,
  };
}
