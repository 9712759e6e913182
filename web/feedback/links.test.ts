import { describe, expect, it } from 'vitest';
import { feedbackPath, feedbackQuery } from './links';
import { screenshotProblem } from './screenshot';

describe('feedback links', () => {
  it('carries the page one came from, and reads it back', () => {
    const path = feedbackPath('/ar/v/abc?x=1&y=2', 'bug');
    expect(path).toBe('/feedback?from=%2Far%2Fv%2Fabc%3Fx%3D1%26y%3D2&category=bug');
    expect(feedbackQuery(`/ar${path}`)).toEqual({ from: '/ar/v/abc?x=1&y=2', category: 'bug' });
  });

  it('never sends a page elsewhere, nor a category that does not exist', () => {
    expect(feedbackQuery('/en/feedback?from=https://evil.example/&category=rant')).toEqual({
      from: '/',
      category: null,
    });
    expect(feedbackQuery('/en/feedback?from=//evil.example').from).toBe('/');
    expect(feedbackQuery('/en/feedback').from).toBe('/');
  });
});

describe('screenshotProblem', () => {
  it('takes pictures up to 5 MB of the four types the server reads', () => {
    expect(screenshotProblem({ type: 'image/png', size: 5 * 1024 * 1024 })).toBeNull();
    expect(screenshotProblem({ type: 'image/png', size: 5 * 1024 * 1024 + 1 })).toBe('size');
    expect(screenshotProblem({ type: 'image/svg+xml', size: 10 })).toBe('type');
    expect(screenshotProblem({ type: 'application/pdf', size: 10 })).toBe('type');
  });
});
