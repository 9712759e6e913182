// What the main thread's long tasks are made of, from a Chrome trace (devtools.timeline events):
// for each task over 50 ms, the time its own children took by kind (script, style, layout,
// paint…), summed. Used by the room bench (ROOM_TRACE=1) to tell our code from the browser's work.

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: { url?: string; functionName?: string; elementCount?: number } };
}

/** Event names grouped as DevTools' summary groups them. */
const KIND: Record<string, string> = {
  FunctionCall: 'script',
  EvaluateScript: 'script',
  'v8.compile': 'script',
  'v8.compileModule': 'script',
  TimerFire: 'script',
  EventDispatch: 'script',
  FireAnimationFrame: 'script',
  RunMicrotasks: 'script',
  'v8.run': 'script',
  V8GCCompactor: 'gc',
  MinorGC: 'gc',
  MajorGC: 'gc',
  'BlinkGC.AtomicPhase': 'gc',
  UpdateLayoutTree: 'style',
  RecalculateStyles: 'style',
  Layout: 'layout',
  PrePaint: 'paint',
  Paint: 'paint',
  PaintImage: 'paint',
  Layerize: 'paint',
  UpdateLayer: 'paint',
  Commit: 'paint',
  CompositeLayers: 'paint',
  HitTest: 'other',
  ParseHTML: 'parse',
  ParseAuthorStyleSheet: 'parse',
};

export interface TaskBreakdown {
  longTasks: number;
  /** Summed over the long tasks, ms by kind (a child's time counted once, at its outermost kind). */
  byKind: Record<string, number>;
  /** The longest task's own breakdown. */
  longest: { ms: number; byKind: Record<string, number> };
  /** Style recalculations in long tasks: how many and how many elements each touched at most. */
  styleRecalcs: number;
  maxElementsRestyled: number;
}

export function summariseTrace(json: string, thresholdMs = 50): TaskBreakdown {
  const parsed = JSON.parse(json) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  // The renderer's main thread: the thread with the most layout/style events.
  const counts = new Map<string, number>();
  for (const e of events)
    if (e.name === 'UpdateLayoutTree' || e.name === 'Layout') {
      const key = `${e.pid}:${e.tid}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const onMain = events
    .filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const tasks = onMain.filter((e) => e.name === 'RunTask' && (e.dur ?? 0) / 1000 > thresholdMs);
  const byKind: Record<string, number> = {};
  let longest = { ms: 0, byKind: {} as Record<string, number> };
  let styleRecalcs = 0;
  let maxElementsRestyled = 0;
  for (const task of tasks) {
    const end = task.ts + (task.dur ?? 0);
    const own: Record<string, number> = {};
    // Children in order; one counted only where no enclosing child of a known kind is open.
    let coveredUntil = task.ts;
    for (const e of onMain) {
      if (e.ts < task.ts || e.ts >= end || e === task) continue;
      if (e.name === 'UpdateLayoutTree') {
        styleRecalcs++;
        maxElementsRestyled = Math.max(maxElementsRestyled, e.args?.data?.elementCount ?? 0);
      }
      const kind = KIND[e.name];
      if (!kind || e.ts < coveredUntil) continue;
      own[kind] = (own[kind] ?? 0) + (e.dur ?? 0) / 1000;
      coveredUntil = e.ts + (e.dur ?? 0);
    }
    const ms = (task.dur ?? 0) / 1000;
    own.unaccounted = Math.max(0, ms - Object.values(own).reduce((a, b) => a + b, 0));
    for (const [k, v] of Object.entries(own)) byKind[k] = (byKind[k] ?? 0) + v;
    if (ms > longest.ms) longest = { ms, byKind: own };
  }
  const round = (o: Record<string, number>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));
  return {
    longTasks: tasks.length,
    byKind: round(byKind),
    longest: { ms: Math.round(longest.ms), byKind: round(longest.byKind) },
    styleRecalcs,
    maxElementsRestyled,
  };
}
