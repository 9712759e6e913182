import { describe, expect, it } from 'vitest';
import { applyRatio, cashoutAmount, diamondsToCents, parseRatio } from '../../../common/money';
import { loadConfig } from '../../config';

// The money rates as exact integers: parsing a decimal rate, applying it, what a cash-out pays,
// and the configuration refusing rates that are not what they look like.
describe('exact rates', () => {
  it('reads a decimal rate as a reduced ratio and applies it rounding down, without floats', () => {
    expect(parseRatio('0.57')).toEqual({ num: 57, den: 100 });
    expect(parseRatio('2.50')).toEqual({ num: 5, den: 2 });
    expect(parseRatio('1')).toEqual({ num: 1, den: 1 });
    for (const bad of ['1e3', '0x10', '-1', '.5', '1.', '0.00001', '', 'one'])
      expect(parseRatio(bad), bad).toBeNull();
    // Math.floor(100 * 0.57) is 56: the float is 56.99999999999999.
    expect(Math.floor(100 * 0.57)).toBe(56);
    expect(applyRatio(100, { num: 57, den: 100 })).toBe(57);
    expect(applyRatio(1, { num: 57, den: 100 })).toBe(0);
    expect(applyRatio(Number.MAX_SAFE_INTEGER, { num: 1, den: 1 })).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('cashes out only diamonds worth whole cents; the rest stays', () => {
    // 200 a dollar: two diamonds a cent. 10,001 diamonds pay 50.00 USD for 10,000; one stays.
    expect(cashoutAmount(10_001, 200)).toEqual({ diamonds: 10_000, cents: 5_000 });
    expect(cashoutAmount(10_000, 200)).toEqual({ diamonds: 10_000, cents: 5_000 });
    // 150 a dollar: three diamonds are two cents, and nothing smaller is whole cents.
    expect(cashoutAmount(10, 150)).toEqual({ diamonds: 9, cents: 6 });
    expect(cashoutAmount(7, 1)).toEqual({ diamonds: 7, cents: 700 });
    // Exact where diamonds × 100 passes 2^53.
    expect(cashoutAmount(2 ** 52 + 1, 200)).toEqual({ diamonds: 2 ** 52, cents: 2 ** 51 });
    expect(diamondsToCents(399, 200)).toBe(199);
  });

  it('configuration accepts only exact money settings', () => {
    const config = (env: Record<string, string>) => loadConfig({ APP_ENV: 'test', ...env });
    expect(config({ GIFT_DIAMONDS_PER_COIN: '0.57' }).GIFT_DIAMONDS_PER_COIN).toEqual({ num: 57, den: 100 });
    expect(config({}).GIFT_DIAMONDS_PER_COIN).toEqual({ num: 1, den: 1 });
    expect(config({ DIAMONDS_PER_USD: '150', CONVERT_DIAMONDS_PER_COIN: '3' })).toMatchObject({
      DIAMONDS_PER_USD: 150,
      CONVERT_DIAMONDS_PER_COIN: 3,
    });
    const refused: Record<string, string>[] = [
      { GIFT_DIAMONDS_PER_COIN: '0' },
      { GIFT_DIAMONDS_PER_COIN: '1e3' },
      { GIFT_DIAMONDS_PER_COIN: '0.123456' },
      { GIFT_DIAMONDS_PER_COIN: '570' },
      { DIAMONDS_PER_USD: '2.5' },
      { DIAMONDS_PER_USD: '1e3' },
      { DIAMONDS_PER_USD: '0' },
      { DIAMONDS_PER_USD: '10000000' },
      { CONVERT_DIAMONDS_PER_COIN: '0x10' },
      { CONVERT_DIAMONDS_PER_COIN: '1.5' },
      { CASHOUT_MIN_USD: '5000', CASHOUT_WEEKLY_CAP_USD: '4200' },
    ];
    for (const env of refused)
      expect(() => config(env), JSON.stringify(env)).toThrow(/Invalid configuration/);
  });
});
