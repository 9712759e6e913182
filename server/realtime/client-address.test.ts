import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from './client-address';

const req = (remote: string, forwarded?: string | string[]) =>
  ({
    socket: { remoteAddress: remote },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

describe('the client address behind proxies', () => {
  it('is the socket peer when no proxy is trusted, whatever the header says', () => {
    expect(clientAddress(req('10.0.0.9', '1.2.3.4'), 0)).toBe('10.0.0.9');
  });

  it('is read from the right: what the client itself wrote on the left proves nothing', () => {
    // The client claims 6.6.6.6; the load balancer appended the address it was reached from.
    expect(clientAddress(req('10.0.0.2', '6.6.6.6, 203.0.113.7'), 1)).toBe('203.0.113.7');
    // Two proxies (a CDN, then the load balancer): the CDN saw the client.
    expect(clientAddress(req('10.0.0.2', ['6.6.6.6, 198.51.100.4', '172.16.0.8']), 2)).toBe('198.51.100.4');
  });

  it('falls back to the furthest entry, or the socket, when the chain is shorter than the hops', () => {
    expect(clientAddress(req('10.0.0.2', '203.0.113.7'), 3)).toBe('203.0.113.7');
    expect(clientAddress(req('10.0.0.2'), 1)).toBe('10.0.0.2');
  });
});
