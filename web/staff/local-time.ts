// A datetime-local field's value and an instant: the field speaks the editor's own time zone.

/** An ISO instant as a datetime-local value (YYYY-MM-DDTHH:mm) in the browser's time zone. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local value (the browser's time zone) as an ISO instant. */
export function fromLocalInput(value: string): string {
  return new Date(value).toISOString();
}
