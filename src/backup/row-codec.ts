/**
 * A table row as one line of JSON: bytes (Buffers) become `{"$base64": "…"}`, everything else is what
 * the store returned (numbers, strings, null); both stores read and write the same values.
 */
export function encodeRow(row: Record<string, unknown>): string {
  return JSON.stringify(row, (_key, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
      return { $base64: Buffer.from((value as { data: number[] }).data).toString('base64') };
    }
    return value;
  });
}

export function decodeRow(line: string): Record<string, unknown> {
  return JSON.parse(line, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === '$base64' && typeof (value as { $base64: unknown }).$base64 === 'string') {
        return Buffer.from((value as { $base64: string }).$base64, 'base64');
      }
    }
    return value;
  }) as Record<string, unknown>;
}
