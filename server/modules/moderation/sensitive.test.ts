import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SensitiveWords } from './sensitive';

describe('sensitive words', () => {
  const words = new SensitiveWords(['# comment', 'ass', 'sex show', 'cocaine', '色情', 'エロ']);

  it('matches whole Latin-script words, ignoring case and accents', () => {
    expect(words.contains('Big ASS party')).toBe(true);
    expect(words.contains('Live SEX show tonight')).toBe(true);
    expect(words.contains('Cocaïne talk')).toBe(true);
    expect(words.contains('Classical guitar')).toBe(false);
    expect(words.contains('sexy shoes')).toBe(false);
    expect(words.contains('comment')).toBe(false);
  });

  it('matches Chinese and Japanese entries anywhere (no spaces between words), half-width kana too', () => {
    expect(words.contains('今晚色情直播')).toBe(true);
    expect(words.contains('エロ配信')).toBe(true);
    expect(words.contains('ｴﾛ配信')).toBe(true);
    expect(words.contains('今晚唱歌')).toBe(false);
  });

  it('an entry written with accents matches only as written (Vietnamese)', () => {
    const vi = new SensitiveWords(['đĩ', 'lồn']);
    expect(vi.contains('đồ đĩ')).toBe(true);
    expect(vi.contains('ĐĨ')).toBe(true);
    expect(vi.contains('mình đi chơi')).toBe(false); // 'đi' is "go"
    expect(vi.contains('lớn lên')).toBe(false);
  });

  it('keeps Devanagari vowel signs and Japanese voicing marks: other words stay other words', () => {
    const hi = new SensitiveWords(['चोद', 'カス']);
    expect(hi.contains('चोद')).toBe(true);
    expect(hi.contains('चाँद रात')).toBe(false); // the moon; would equal चद… without its vowel signs
    expect(hi.contains('चोदा')).toBe(false); // a longer word, not this one
    expect(hi.contains('カス')).toBe(true);
    expect(hi.contains('ガス料金')).toBe(false); // gas bill: ガ is not カ
  });

  it('reads Arabic without vowel signs, stretching strokes or alif and ta marbuta variants', () => {
    const ar = new SensitiveWords(['اباحية']);
    expect(ar.contains('أفلام إباحيّة')).toBe(true);
    expect(ar.contains('افلام اباحيـــه')).toBe(true);
    expect(ar.contains('افلام وثائقية')).toBe(false);
  });

  it('loads every shipped list and a deployment’s own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'words-'));
    const extra = join(dir, 'ours.txt');
    writeFileSync(extra, '# ours\nbadword\n');
    const shipped = SensitiveWords.load([extra]);
    expect(shipped.contains('free porn here')).toBe(true);
    expect(shipped.contains('ini bokep')).toBe(true);
    expect(shipped.contains('một con đĩ')).toBe(true);
    expect(shipped.contains('今天幹你娘')).toBe(true);
    expect(shipped.contains('a BadWord here')).toBe(true);
    expect(shipped.contains('Morning coffee stream')).toBe(false);
    expect(shipped.contains('Chào buổi sáng, đi chơi nhé')).toBe(false);
    expect(shipped.contains('मैं आज गाना गाऊँगा')).toBe(false);
    expect(shipped.contains('مرحبا بكم في البث')).toBe(false);
  });
});

describe('masking chat', () => {
  const words = new SensitiveWords(['ass', '傻瓜', 'cocaine', 'اباحية']);
  it('masks whole words in spaced scripts and substrings in CJK, keeping the rest', () => {
    expect(words.mask('what an ASS, a class act')).toBe('what an ***, a class act');
    expect(words.mask('你是傻瓜吗')).toBe('你是**吗');
    expect(words.mask('nothing here')).toBe('nothing here');
  });

  it('masks exactly the characters as written, one asterisk per character shown', () => {
    expect(words.mask('no Cocaïne, ok')).toBe('no *******, ok');
    expect(words.mask('ｃｏｃａｉｎｅ!')).toBe('*******!');
    expect(words.mask('لا افلام إباحيّة هنا')).toBe('لا افلام ****** هنا');
    expect(words.mask('ass ass')).toBe('*** ***');
  });
});

describe('words hidden with invisible characters or punctuation (issue 16)', () => {
  const words = new SensitiveWords(['cocaine', 'porn', '色情', 'đĩ']);

  it('finds words with zero-width characters, joiners, bidi controls or soft hyphens inside', () => {
    for (const text of [
      'co\u200bcaine',
      'p\u200do\u200cr\u2060n',
      'co\u00adcaine',
      'por\u202en',
      '色\ufeff情',
      'đ\u200bĩ',
    ])
      expect(words.contains(text), JSON.stringify(text)).toBe(true);
  });

  it('finds words spelled out with punctuation or symbols between the letters', () => {
    for (const text of ['free c.o.c.a.i.n.e', 'co-caine party', 'p_o_r_n', 'p*o*r*n', '色.情', 'đ.ĩ'])
      expect(words.contains(text), text).toBe(true);
  });

  it('still reads words as whole words: punctuation around a word is no part of it', () => {
    expect(words.contains('free-porn site')).toBe(true);
    expect(words.contains('pornography')).toBe(false);
    expect(words.contains('corn.pop')).toBe(false);
    expect(words.contains('co caine')).toBe(false);
  });

  it('masks the whole hidden word, separators and invisible characters included', () => {
    expect(words.mask('no c.o.c.a.i.n.e!')).toBe('no *************!');
    expect(words.mask('no p\u200born here')).toBe('no ***** here');
  });
});
