import { useEffect, useRef } from 'react';
import type uPlot from 'uplot';

/** One line of a chart: its label and a value per x (null: no value that day). */
export interface Series {
  label: string;
  values: (number | null)[];
}

/** Line colours, told apart by people with the common colour-vision deficiencies. */
const COLOURS = ['#c8105a', '#1d4ed8', '#047857', '#b45309', '#6d28d9', '#0e7490'];

/**
 * A line chart of `series` over `xs` (seconds since the epoch, one per day or week) drawn by uPlot,
 * loaded only in the browser and only on the pages that chart (its code stays out of the site's
 * bundle). `label` names the chart for screen readers; the table beside it has the numbers.
 */
export function Chart({ label, xs, series }: { label: string; xs: number[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    let gone = false;
    const observer = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height: 220 }));
    void import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      plot = new UPlot(
        {
          width: el.clientWidth,
          height: 220,
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: true } },
          series: [
            {},
            ...series.map((s, i) => ({
              label: s.label,
              stroke: COLOURS[i % COLOURS.length] ?? '#c8105a',
              width: 2,
              points: { show: xs.length < 40 },
            })),
          ],
          axes: [{}, { size: 56 }],
        },
        [xs, ...series.map((s) => s.values)],
        el,
      );
      observer.observe(el);
    });
    return () => {
      gone = true;
      observer.disconnect();
      plot?.destroy();
    };
  }, [xs, series]);
  return <div ref={box} className="staff-chart" role="img" aria-label={label} />;
}
