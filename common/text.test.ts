import { describe, expect, it } from 'vitest';
import { cleanText, isStorable } from './text';

describe('isStorable', () => {
  it('refuses NUL and lone surrogates, accepts everything else', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '😀\ud83d'])
      expect(isStorable(bad), JSON.stringify(bad)).toBe(false);
    for (const ok of ['', 'plain', '😀 👨‍👩‍👧', 'می‌خواهم', '\u202eevil', 'tab\tand\nlines'])
      expect(isStorable(ok), ok).toBe(true);
  });
});

describe('cleanText', () => {
  it('removes bidi embeddings, overrides and isolates', () => {
    expect(cleanText('my \u202egnp.exe')).toBe('my gnp.exe');
    expect(cleanText('\u2067שלום\u2069 and \u202aLRE\u202c \u2068x\u2069')).toBe('שלום and LRE x');
  });

  it('keeps the directional marks mixed right-to-left text needs', () => {
    expect(cleanText('مرحبا\u200f 123 \u200eabc \u061c')).toBe('مرحبا\u200f 123 \u200eabc \u061c');
  });

  it('removes invisible characters and control characters, keeps tabs and lines', () => {
    expect(cleanText('co\u200bca\u2060i\ufeffne\u00ad')).toBe('cocaine');
    expect(cleanText('\u3164\u3164')).toBe('');
    expect(cleanText('a\u0001b\u007fc\u009fd')).toBe('abcd');
    expect(cleanText('line one\nline\ttwo')).toBe('line one\nline\ttwo');
  });

  it('keeps the zero width joiner inside emoji sequences', () => {
    for (const emoji of ['👨‍👩‍👧', '👩🏽‍💻', '🏳️‍🌈', '⛹️‍♂️', '🧑‍🦰'])
      expect(cleanText(`hi ${emoji}!`)).toBe(`hi ${emoji}!`);
  });

  it('keeps joiners Persian and Hindi need between their letters', () => {
    // Persian "I want" with a ZWNJ; Hindi क्‍ष with a ZWJ after the virama (an explicit half form).
    expect(cleanText('می‌خواهم')).toBe('می‌خواهم');
    expect(cleanText('क्‍ष')).toBe('क्‍ष');
  });

  it('removes joiners that cannot belong: between Latin letters, at the edges, doubled', () => {
    expect(cleanText('co\u200dca\u200cine')).toBe('cocaine');
    expect(cleanText('\u200dhello\u200c')).toBe('hello');
    expect(cleanText('😀\u200d')).toBe('😀');
    expect(cleanText('a\u200d\u200db')).toBe('ab');
  });
});
