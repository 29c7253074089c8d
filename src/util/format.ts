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

/** 4972 → "4,972": counts as a person reads them, the same on every machine. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** "1 item", "4,972 items". */
export function formatItems(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'item' : 'items'}`;
}
