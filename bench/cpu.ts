import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds in user space and in the kernel a process has used so far, from /proc. */
export function cpuSplit(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/**
 * CPU seconds (user + system) used so far by every process whose command name is `comm`
 * (`postgres`, `redis-server`): the database's share of a benchmark's work, all backends together.
 * Processes that ended meanwhile are not counted, so read it around a run whose connections stay open.
 */
export function cpuSecondsOf(comm: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== comm) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
