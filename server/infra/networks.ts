import { isIP } from 'node:net';

/**
 * How limits group client addresses. One person can pick any address of an IPv6 /64 (one
 * subscriber's network), so IPv6 counts by /64; IPv4 addresses written as IPv6 (`::ffff:a.b.c.d`)
 * count as the IPv4 address they are.
 */

/** The IPv4 address inside an IPv4-mapped or IPv4-compatible IPv6 address, if any. */
export function embeddedIpv4(ip: string): string | null {
  const m = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m?.[1] ?? null;
}

/** Where several requests count as coming from one place: an IPv4 address, or an IPv6 /64. */
export function addressGroup(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return bare;
  const v4 = embeddedIpv4(bare);
  if (v4) return v4;
  // Expand '::' so the first four groups are known, whatever the compression.
  const [head = '', tail = ''] = bare.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = bare.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The network an address belongs to, for limits an attacker with many addresses must not dodge:
 * a.b.c.0/24 for IPv4, the /64 for IPv6.
 */
export function networkPrefix(ip: string): string {
  const group = addressGroup(ip);
  return isIP(group) === 4 ? `${group.split('.').slice(0, 3).join('.')}.0/24` : group;
}
