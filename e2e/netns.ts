// Networks for browser tests: a Linux network namespace joined to this machine by a veth pair.
// blockedNetwork's firewall (nftables) drops every UDP packet it would send: a browser run inside
// reaches this machine over TCP only (as behind a firewall that allows web traffic only).
// slowNetwork's link to it carries so many kilobits a second (tc's token bucket on this
// machine's end, dropping what overflows it), as a phone on a weak network receives. Needs root
// and iproute2, and nftables for the first (the test command installs them where missing).
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
  /** The namespace's firewall rules, as nftables lists them (a slow one: its link's queue, as tc does). */
  rules(): string;
  close(): void;
}

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

export function blockedNetwork(chromiumPath: string): BlockedNetwork {
  return namespace(chromiumPath, 'udp', 231, (ns) =>
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
    ),
  );
}

/**
 * A network whose downlink (this machine to the namespace) can be made slow while a test runs:
 * `limit(kbit)` lets so many kilobits a second through, dropping what overflows (the page has
 * loaded by then: a phone whose network weakens while it watches).
 */
export function slowNetwork(chromiumPath: string): BlockedNetwork & { limit(kbit: number): void } {
  let outer = '';
  const net = namespace(chromiumPath, 'slow', 232, (_ns, link) => {
    outer = link;
  });
  return {
    ...net,
    limit: (kbit) =>
      void run('tc', [
        'qdisc',
        'replace',
        'dev',
        outer,
        'root',
        'tbf',
        'rate',
        `${kbit}kbit`,
        'burst',
        '8kb',
        'latency',
        '80ms',
      ]),
  };
}

/** The namespace `kind`, on 10.`net`.x.0/30, with `setUp` run on it (given its name and this end's link). */
function namespace(
  chromiumPath: string,
  kind: string,
  net: number,
  setUp: (ns: string, outer: string) => void,
): BlockedNetwork {
  const n = process.pid % 250;
  const ns = `beamly-${kind}-${process.pid}`;
  const tag = kind.slice(0, 1);
  const [outer, inner] = [`b${tag}${process.pid}h`, `b${tag}${process.pid}n`];
  const hostIp = `10.${net}.${n}.1`;
  const innerIp = `10.${net}.${n}.2`;
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
  setUp(ns, outer);
  const launcher = join(mkdtempSync(join(tmpdir(), 'beamly-netns-')), 'chromium');
  writeFileSync(launcher, `#!/bin/sh\nexec ip netns exec ${ns} ${chromiumPath} "$@"\n`);
  chmodSync(launcher, 0o755);
  return {
    hostIp,
    innerIp,
    chromium: launcher,
    rules: () =>
      kind === 'udp'
        ? run('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset'])
        : run('tc', ['qdisc', 'show', 'dev', outer]),
    close,
  };
}
