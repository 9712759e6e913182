import { describe, expect, it } from 'vitest';
import { isEmail, isName, isPassword } from './validation';

describe('spec §5 validation', () => {
  it('accepts and refuses e-mail addresses by the spec’s shape', () => {
    for (const ok of ['a@b.co', 'first.last@mail.example.com', 'a-b_c.d@sub-domain.io', 'X9@Y.info'])
      expect(isEmail(ok), ok).toBe(true);
    for (const bad of [
      '',
      'a@b',
      'a@b.c',
      'a@b.abcdef',
      '.a@b.com',
      'a..b@c.com',
      'a@-b.com',
      'a b@c.com',
      'a@b_c.com',
      'a+tag@b.com',
    ])
      expect(isEmail(bad), bad).toBe(false);
  });

  it('passwords are 6 to 20 characters of any kind', () => {
    expect(isPassword('12345')).toBe(false);
    expect(isPassword('123456')).toBe(true);
    expect(isPassword('ü'.repeat(20))).toBe(true);
    expect(isPassword('x'.repeat(21))).toBe(false);
    expect(isPassword('пароль')).toBe(true);
  });

  it('names are letters, digits and Chinese characters', () => {
    expect(isName('Lena2026')).toBe(true);
    expect(isName('小明')).toBe(true);
    expect(isName('ليلى')).toBe(true);
    expect(isName('a b')).toBe(false);
    expect(isName('<b>')).toBe(false);
  });
});
