// Issue 19, the search index's weight on the garbage collector (--only=search-heap --db=<url>, a
// database seeded by --only=explore --keep): a node holds a million people in memory, and every
// full collection of its heap marks what the index keeps while the answers waiting pause. This
// loads the index as a node does, in this process, and times full collections with it and, the
// baseline, after it is dropped (the same process without it).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openPostgres } from '../server/db/client';
import { SearchService } from '../server/modules/discovery/search-service';

export interface HeapRow {
  name: string;
  'full collection ms (median of 5)': number;
  'heap used MB': number;
}

/** A full, stop-the-world collection's time, the median of five. */
function fullCollection(gc: () => void): HeapRow['full collection ms (median of 5)'] {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    gc();
    times.push(performance.now() - t);
  }
  return Math.round(times.sort((a, b) => a - b)[2] ?? 0);
}

export async function searchHeapBench(url: string): Promise<{ people: number; rows: HeapRow[] }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const db = openPostgres(url, 4);
  let search: SearchService | null = new SearchService(db);
  try {
    const t = performance.now();
    await search.index.load();
    const people = search.index.size;
    console.log(`  ${people} people loaded in ${Math.round(performance.now() - t)} ms`);
    const row = (name: string): HeapRow => ({
      name,
      'full collection ms (median of 5)': fullCollection(gc),
      'heap used MB': Math.round(process.memoryUsage().heapUsed / 1e6),
    });
    const rows = [row(`the search index of ${people} people`)];
    search.stop();
    search = null;
    rows.push(row('without it (baseline)'));
    return { people, rows };
  } finally {
    await db.close();
  }
}
