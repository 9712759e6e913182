/**
 * Waits until `ok` answers true, asking every `everyMs`; throws after `ms` with `what` (and the
 * last answer's description, when given). For states reached in the background: never a sleep.
 */
export async function until(
  what: string,
  ok: () => boolean | Promise<boolean>,
  { ms = 10_000, everyMs = 50 }: { ms?: number; everyMs?: number } = {},
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await ok()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
