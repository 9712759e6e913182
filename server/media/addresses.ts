import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from '../infra/networks';

/**
 * Addresses the media engine must not send to on a caller's word: a WHIP/WHEP offer (or a trickled
 * fragment) names ICE candidates, and the engine sends STUN checks to each. Without this a caller
 * could point the server at itself (127.0.0.1), at the machines next to it, or at a cloud's
 * metadata service. Special-purpose ranges from the IANA registries (RFC 6890 and successors).
 */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

/**
 * Whether `host` is a literal IP address on the public internet. Names (an mDNS `.local` name, or
 * any DNS name) are not: resolving them would let the caller choose where the server sends.
 */
export function isPublicAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return !NOT_PUBLIC.check(bare, 'ipv4');
  if (version !== 6) return false;
  const v4 = embeddedIpv4(bare);
  if (v4) return !NOT_PUBLIC.check(v4, 'ipv4');
  return !NOT_PUBLIC.check(bare, 'ipv6');
}

/**
 * An SDP `a=candidate` attribute (or the value after `candidate:`) the engine may use: a literal
 * public address, or anything at all when private networks are allowed (local development).
 */
export function allowedCandidate(line: string, allowPrivate: boolean): boolean {
  if (allowPrivate) return true;
  // foundation component transport priority address port "typ" type …
  const fields = line
    .replace(/^a=/, '')
    .replace(/^candidate:/, '')
    .trim()
    .split(/\s+/);
  const address = fields[4];
  const port = Number(fields[5]);
  return (
    address !== undefined && Number.isInteger(port) && port > 0 && port < 65536 && isPublicAddress(address)
  );
}
