import { useMemo, useState } from 'react';
import type { AnalyticsAnswer } from '../../common/api/analytics';
import type { AnalyticsMetric } from '../../common/analytics';
import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';
import { Chart, type Series } from '../staff/Chart';
import { Console } from '../staff/Console';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/** The charts and the metrics each draws (a metric counted by way draws a line per way). */
type ChartId = 'visits' | 'signups' | 'logins' | 'lives' | 'gifts' | 'recharges';
const CHARTS: { id: ChartId; metrics: AnalyticsMetric[] }[] = [
  { id: 'visits', metrics: ['visitors', 'page_views'] },
  { id: 'signups', metrics: ['register_clicks', 'signups'] },
  { id: 'logins', metrics: ['login_failures'] },
  { id: 'lives', metrics: ['go_lives', 'hosts_live'] },
  { id: 'gifts', metrics: ['gifts', 'gift_coins'] },
  { id: 'recharges', metrics: ['recharges_opened', 'recharges_paid'] },
];

const RANGES = { daily: 28, weekly: 84 } as const;
type Range = keyof typeof RANGES;
const DAY_MS = 86_400_000;

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** An offset from UTC as people write it: +8, -7, +0. */
const signed = (hours: number) => `${hours < 0 ? '-' : '+'}${Math.abs(hours)}`;

/** /staff/analytics: the first-party analytics' daily roll-ups as charts, by day or by week. */
export default function StaffAnalytics() {
  return (
    <Console page="analytics" needs="analytics.read">
      {() => <AnalyticsPage />}
    </Console>
  );
}

function AnalyticsPage() {
  const { t, locale } = useI18n();
  const [range, setRange] = useState<Range>('daily');
  // Whole days, the newest being today (in UTC; the server counts in its own offset).
  const [today] = useState(() => Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const from = ymd(today - (RANGES[range] - 1) * DAY_MS);
  const { data, error, loading, reload } = useApiData<AnalyticsAnswer>(
    `/api/v1/staff/analytics?from=${from}&to=${ymd(today)}`,
  );
  const charts = useMemo(() => (data ? build(data, from, RANGES[range], range) : null), [data, from, range]);
  const label = (metric: AnalyticsMetric, dim: string) =>
    dim ? `${t(`console.analytics.metric.${metric}`)} · ${dim}` : t(`console.analytics.metric.${metric}`);
  return (
    <>
      <header className="page-head staff-head">
        <h1>{t('console.nav.analytics')}</h1>
        <div className="segmented" role="group" aria-label={t('console.analytics.range')}>
          {(Object.keys(RANGES) as Range[]).map((r) => (
            <button key={r} type="button" aria-pressed={range === r} onClick={() => setRange(r)}>
              {t(`console.analytics.${r}`)}
            </button>
          ))}
        </div>
      </header>
      <p className="muted small">{t('console.analytics.intro', { offset: signed(data?.utcOffset ?? 0) })}</p>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {charts && (
        <div className="staff-charts">
          {CHARTS.map((c) => {
            const lines = charts.lines.filter((l) => c.metrics.includes(l.metric));
            const series: Series[] = lines.map((l) => ({ label: label(l.metric, l.dim), values: l.values }));
            return (
              <section key={c.id} className="staff-chart-card" aria-labelledby={`chart-${c.id}`}>
                <h2 id={`chart-${c.id}`}>{t(`console.analytics.chart.${c.id}`)}</h2>
                {lines.length === 0 ? (
                  <p className="muted">{t('console.analytics.none')}</p>
                ) : (
                  <>
                    <Chart label={t(`console.analytics.chart.${c.id}`)} xs={charts.xs} series={series} />
                    <table className="staff-table staff-table--small">
                      <tbody>
                        {lines.map((l) => (
                          <tr key={`${l.metric}:${l.dim}`}>
                            <th scope="row">{label(l.metric, l.dim)}</th>
                            <td>{formatCount(l.total, locale)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </>
                )}
              </section>
            );
          })}
        </div>
      )}
    </>
  );
}

/**
 * The roll-ups as lines over the range: one point per day, or per week of seven days (a week's
 * value is the sum of its days: visitors are then visitor-days, not distinct people).
 */
function build(data: AnalyticsAnswer, from: string, days: number, range: Range) {
  const start = Date.parse(`${from}T00:00:00Z`);
  const step = range === 'weekly' ? 7 : 1;
  const points = Math.ceil(days / step);
  const xs = Array.from({ length: points }, (_, i) => (start + i * step * DAY_MS) / 1000);
  const byLine = new Map<string, { metric: AnalyticsMetric; dim: string; values: number[]; total: number }>();
  for (const row of data.days) {
    const i = Math.floor((Date.parse(`${row.day}T00:00:00Z`) - start) / DAY_MS / step);
    if (i < 0 || i >= points) continue;
    const key = `${row.metric}:${row.dim}`;
    let line = byLine.get(key);
    if (!line)
      byLine.set(
        key,
        (line = { metric: row.metric, dim: row.dim, values: Array<number>(points).fill(0), total: 0 }),
      );
    line.values[i] = (line.values[i] ?? 0) + row.value;
    line.total += row.value;
  }
  return {
    xs,
    lines: [...byLine.values()].sort(
      (a, b) => a.metric.localeCompare(b.metric) || a.dim.localeCompare(b.dim),
    ),
  };
}
