import { describe, expect, it } from 'vitest';
import { SensitiveWords } from './sensitive';

describe('sensitive words', () => {
  const words = new SensitiveWords(['# comment', 'ass', 'sex show', 'Cocaïne', '色情', 'エロ']);

  it('matches whole Latin-script words, ignoring case and accents', () => {
    expect(words.contains('Big ASS party')).toBe(true);
    expect(words.contains('Live SEX show tonight')).toBe(true);
    expect(words.contains('cocaine talk')).toBe(true);
    expect(words.contains('Classical guitar')).toBe(false);
    expect(words.contains('sexy shoes')).toBe(false);
    expect(words.contains('comment')).toBe(false);
  });

  it('matches Chinese and Japanese entries anywhere (no spaces between words)', () => {
    expect(words.contains('今晚色情直播')).toBe(true);
    expect(words.contains('エロ配信')).toBe(true);
    expect(words.contains('今晚唱歌')).toBe(false);
  });

  it('loads the shipped list', () => {
    const shipped = SensitiveWords.load();
    expect(shipped.contains('free porn here')).toBe(true);
    expect(shipped.contains('Morning coffee stream')).toBe(false);
  });
});

describe('masking chat', () => {
  const words = new SensitiveWords(['ass', '傻瓜']);
  it('masks whole words in spaced scripts and substrings in CJK, keeping the rest', () => {
    expect(words.mask('what an ASS, a class act')).toBe('what an ***, a class act');
    expect(words.mask('你是傻瓜吗')).toBe('你是**吗');
    expect(words.mask('nothing here')).toBe('nothing here');
  });
});
