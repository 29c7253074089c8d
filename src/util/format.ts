const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 48213 → "47.1 KiB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** A change in bytes with its sign: "+1.2 GiB", "-512 B", "0 B". */
export function formatGrowth(bytes: number): string {
  if (bytes === 0) return '0 B';
  return `${bytes > 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`;
}

/** 4972 → "4,972": counts as a person reads them, the same on every machine. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** "1 item", "4,972 items". */
export function formatItems(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'item' : 'items'}`;
}
