import { describe, expect, it } from 'vitest';
import { escapeChat, type RoomEvent } from '../../common/realtime';
import { countGraphemes } from '../../common/validation';
import type { I18n } from '../i18n/i18n';
import {
  applyEvents,
  chatErrorText,
  clampChat,
  CHAT_MAX_CHARS,
  hostTexts,
  noticeText,
  type ChatLine,
} from './chat-lines';

let seq = 0;
const base = () => ({ id: `1000-${++seq}`, room: 'room1', at: 1000 });
const chat = (mid: string): RoomEvent => ({
  ...base(),
  t: 'chat',
  mid,
  from: { uid: 1, name: 'A', role: 'viewer' },
  text: mid,
  mentions: [],
});
const del = (mid: string): RoomEvent => ({ ...base(), t: 'delete', mid });
const mids = (lines: ChatLine[]) => lines.map((l) => (l.t === 'chat' ? l.mid : l.t));

describe('applyEvents', () => {
  it('drops a message deleted later in the same history', () => {
    const lines = applyEvents([], [chat('a'), chat('b'), del('a'), chat('c')], 200);
    expect(mids(lines)).toEqual(['b', 'c']);
  });

  it('drops a message already shown when a later batch deletes it (a resume)', () => {
    const shown = applyEvents([], [chat('a'), chat('b')], 200);
    expect(mids(applyEvents(shown, [del('b'), chat('c')], 200))).toEqual(['a', 'c']);
  });

  it('drops a message whose delete came first in the batch', () => {
    expect(mids(applyEvents([], [del('a'), chat('a'), chat('b')], 200))).toEqual(['b']);
  });

  it('keeps follows, gifts, host states and notices, and only the newest `keep` lines', () => {
    const events: RoomEvent[] = [
      { ...base(), t: 'follow', from: { uid: 2, name: 'B', role: 'viewer' } },
      {
        ...base(),
        t: 'gift',
        from: { uid: 2, name: 'B', role: 'viewer' },
        gift_id: 1,
        count: 1,
        coins: 1,
        tx_id: 1,
      },
      { ...base(), t: 'host', state: 'interrupted' },
      { ...base(), t: 'notice', key: 'room_warning' },
      chat('x'),
    ];
    expect(mids(applyEvents([], events, 200))).toEqual(['follow', 'gift', 'host', 'notice', 'x']);
    expect(mids(applyEvents([], events, 2))).toEqual(['notice', 'x']);
  });
});

// A catalogue stand-in: answers the key itself when it has no text, as the real one does.
const texts: Record<string, string> = {
  'error.validation_failed': 'Not valid.',
  'error.network': 'Poor network connection',
  'notice.room_warning': 'Keep it within the guidelines.',
  'notice.greeting': 'Hello {name}',
};
const t: I18n['t'] = (key, values) => {
  const text = texts[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = values?.[k];
    if (v === undefined) throw new Error(`no ${k}`);
    return String(v);
  });
};

describe('chatErrorText', () => {
  it("says the server's error, and 'network' only when there was no answer", () => {
    expect(chatErrorText(t, 'validation_failed')).toBe('Not valid.');
    expect(chatErrorText(t, 'networkError')).toBe('Poor network connection');
    expect(chatErrorText(t, 'toString')).toBe('Poor network connection');
  });
});

describe('noticeText', () => {
  it('shows known notices and nothing for unknown or broken ones', () => {
    expect(noticeText(t, 'room_warning')).toBe('Keep it within the guidelines.');
    expect(noticeText(t, 'greeting', { name: 'Ann' })).toBe('Hello Ann');
    expect(noticeText(t, 'greeting')).toBeNull();
    expect(noticeText(t, 'something_new')).toBeNull();
    expect(noticeText(t, '../room_warning')).toBeNull();
  });
});

describe('clampChat', () => {
  it('counts characters as people do: an emoji is one, and none is cut in half', () => {
    const thumb = '👍🏽'; // 4 code units, one character
    const cut = clampChat(thumb.repeat(CHAT_MAX_CHARS + 5));
    expect(cut).toBe(thumb.repeat(CHAT_MAX_CHARS));
    expect(countGraphemes(cut)).toBe(CHAT_MAX_CHARS);
  });

  it('lets 200 characters through, also when < and > grow in escaping', () => {
    const angles = '<>'.repeat(100);
    expect(clampChat(angles)).toBe(angles);
    expect(clampChat(`${angles}!`)).toBe(angles);
    expect(escapeChat(clampChat('<'.repeat(300))).length).toBeLessThanOrEqual(1000);
  });

  it('keeps a message within what the protocol carries', () => {
    const family = '👨‍👩‍👧‍👦'; // 11 code units, one character
    const cut = clampChat(family.repeat(CHAT_MAX_CHARS));
    expect(escapeChat(cut).length).toBeLessThanOrEqual(1000);
    expect(cut).toBe(family.repeat(Math.floor(1000 / family.length)));
  });
});

describe('hostTexts', () => {
  const host = (state: 'live' | 'interrupted' | 'ended'): ChatLine => ({ ...base(), t: 'host', state });

  it('says the broadcaster started, dropped, came back, ended', () => {
    const lines = [host('live'), host('interrupted'), host('live'), host('ended')];
    expect([...hostTexts(lines, false).values()]).toEqual([
      'chat.hostStarted',
      'chat.hostInterrupted',
      'chat.hostBack',
      'chat.hostEnded',
    ]);
  });

  it('tells the broadcaster their connection gave out when the end follows a drop', () => {
    const lines = [host('interrupted'), host('ended')];
    expect([...hostTexts(lines, true).values()]).toEqual(['chat.hostInterrupted', 'error.unstable']);
    expect([...hostTexts(lines, false).values()]).toEqual(['chat.hostInterrupted', 'chat.hostEnded']);
    expect([...hostTexts([host('live'), host('ended')], true).values()]).toEqual([
      'chat.hostStarted',
      'chat.hostEnded',
    ]);
  });
});
