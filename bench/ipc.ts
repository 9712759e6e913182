import type { ChildProcess } from 'node:child_process';

/** A message from a bench's child process. */
export type Message = Record<string, unknown> & { type?: string; id?: number };

/** The child's next message of `type`; rejects after `timeoutMs` or when the child exits. */
export function next(proc: ChildProcess, type: string, timeoutMs = 120_000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
    const on = (m: Message) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      proc.off('message', on);
      proc.off('exit', exited);
      resolve(m);
    };
    const exited = (code: number | null) => {
      clearTimeout(timer);
      proc.off('message', on);
      reject(new Error(`child exited with ${code}`));
    };
    proc.on('message', on);
    proc.once('exit', exited);
  });
}
