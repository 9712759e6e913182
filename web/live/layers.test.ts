import { describe, expect, it } from 'vitest';
import { shownSize } from './layers';

describe('shownSize', () => {
  it('is the picture fitted into the player, in device pixels', () => {
    // A 16:9 picture in a phone's portrait player: bars above and below (contain).
    expect(shownSize({ width: 360, height: 640 }, { width: 1280, height: 720 }, 'contain', 1)).toEqual({
      maxWidth: 360,
      maxHeight: 203,
    });
    // The same player filled (cover): the picture is drawn taller than wide and cropped.
    expect(shownSize({ width: 360, height: 640 }, { width: 1280, height: 720 }, 'cover', 1)).toEqual({
      maxWidth: 1138,
      maxHeight: 640,
    });
    // A desktop player on a 2× screen.
    expect(shownSize({ width: 800, height: 450 }, { width: 640, height: 360 }, 'contain', 2)).toEqual({
      maxWidth: 1600,
      maxHeight: 900,
    });
  });

  it('is the player itself before the first picture, or when the picture is stretched', () => {
    expect(shownSize({ width: 300, height: 200 }, { width: 0, height: 0 }, 'contain', 1.5)).toEqual({
      maxWidth: 450,
      maxHeight: 300,
    });
    expect(shownSize({ width: 300, height: 200 }, { width: 1280, height: 720 }, 'fill', 1)).toEqual({
      maxWidth: 300,
      maxHeight: 200,
    });
    expect(shownSize({ width: 0, height: 0 }, { width: 0, height: 0 }, 'contain', 1)).toEqual({
      maxWidth: 1,
      maxHeight: 1,
    });
  });
});
