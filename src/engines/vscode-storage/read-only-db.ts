/** How long a read waits for the editor or the tool while it writes (VS Code flushes about 100 ms after a change). */
export const BUSY_TIMEOUT_MS = 3_000;
