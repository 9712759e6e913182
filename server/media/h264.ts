/**
 * The first NAL unit of one of `types` that a STAP-A payload aggregates (RFC 6184 §5.7.1: after
 * the STAP-A header, each unit is a 16-bit size then the unit), or null: not a STAP-A, or none.
 */
export function stapUnit(payload: Buffer, types: readonly number[]): Buffer | null {
  if (((payload[0] ?? 0) & 0x1f) !== 24) return null;
  for (let at = 1; at + 2 < payload.length;) {
    const size = payload.readUInt16BE(at);
    if (types.includes((payload[at + 2] ?? 0) & 0x1f)) return payload.subarray(at + 2, at + 2 + size);
    at += 2 + size;
  }
  return null;
}
