// The bin entry must be executable after every build so `npm link` and global installs work.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
