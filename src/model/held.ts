import type { ReportItem } from './types.js';

/** An item a live process keeps on disk: refused because a process is inside it or holds it open. */
export const isHeld = (item: ReportItem): boolean => item.verdict === 'refused' && item.reason === 'in-use';
