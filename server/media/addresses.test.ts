import { describe, expect, it } from 'vitest';
import { allowedCandidate, isPublicAddress } from './addresses';
import { inactiveNotRejected, selectCodecs, viewerChoice, withoutForbiddenCandidates } from './sdp';

describe('addresses the engine may send to', () => {
  it('refuses loopback, private, link-local, shared, reserved addresses and names', () => {
    for (const host of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.251',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::2',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'ff02::1',
      'c0ffee00-1234.local',
      'example.com',
      '',
    ])
      expect(isPublicAddress(host), host).toBe(false);
    for (const host of ['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700::1111', '::ffff:1.1.1.1'])
      expect(isPublicAddress(host), host).toBe(true);
  });

  it('filters candidate lines unless private networks are allowed', () => {
    const line = (address: string, port = 50000) =>
      `a=candidate:1 1 udp 2130706431 ${address} ${port} typ host generation 0`;
    expect(allowedCandidate(line('8.8.8.8'), false)).toBe(true);
    expect(allowedCandidate(line('127.0.0.1'), false)).toBe(false);
    expect(allowedCandidate(line('8.8.8.8', 0), false)).toBe(false);
    expect(allowedCandidate(line('127.0.0.1'), true)).toBe(true);
    expect(allowedCandidate('candidate:1 1 udp 1 8.8.4.4 3478 typ srflx', false)).toBe(true);
    const sdp = ['v=0', line('10.0.0.2'), line('8.8.8.8'), 'a=end-of-candidates'].join('\r\n');
    expect(withoutForbiddenCandidates(sdp, false)).toBe(
      ['v=0', line('8.8.8.8'), 'a=end-of-candidates'].join('\r\n'),
    );
    expect(withoutForbiddenCandidates(sdp, true)).toBe(sdp);
  });
});

describe('sections a broadcast cannot fill', () => {
  const offer = [
    'v=0',
    'o=- 1 0 IN IP4 0.0.0.0',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0 1',
    'm=video 9 UDP/TLS/RTP/SAVPF 96 97',
    'a=mid:0',
    'a=rtpmap:96 VP8/90000',
    'a=rtpmap:97 H264/90000',
    'a=fmtp:97 packetization-mode=1;profile-level-id=42e01f',
    'a=recvonly',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 0',
    'a=mid:1',
    'a=rtpmap:111 opus/48000/2',
    'a=rtpmap:0 PCMU/8000',
    'a=recvonly',
    '',
  ].join('\r\n');

  it('keeps the publisher’s codec, and one of the offer’s for a kind it does not send', () => {
    const { sdp, chosen, inactive } = selectCodecs(
      offer,
      viewerChoice([{ kind: 'video', name: 'H264', fmtp: 'packetization-mode=1;profile-level-id=42e01f' }]),
    );
    expect(chosen).toEqual([
      { kind: 'video', name: 'H264', fmtp: 'packetization-mode=1;profile-level-id=42e01f' },
    ]);
    expect(inactive).toEqual([
      { kind: 'audio', mid: '1', name: 'opus', clockRate: 48000, channels: 2, fmtp: '' },
    ]);
    expect(sdp).toContain('m=video 9 UDP/TLS/RTP/SAVPF 97\r\n');
    expect(sdp).toContain('m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n');
    expect(sdp).not.toContain('PCMU');
  });

  it('answers an inactive section on port 9, not rejected', () => {
    const answer = ['v=0', 'm=video 9 X 97', 'a=sendonly', 'm=audio 0 X 111', 'a=inactive', ''].join('\r\n');
    expect(inactiveNotRejected(answer)).toBe(
      ['v=0', 'm=video 9 X 97', 'a=sendonly', 'm=audio 9 X 111', 'a=inactive', ''].join('\r\n'),
    );
  });
});
