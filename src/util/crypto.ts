import type { Hash } from 'node:crypto';

// node:crypto brings Node's stream modules with it, several milliseconds of every start, and a
// pass that deletes nothing and reads no repository never hashes or names anything at random:
// the module is loaded on the first call.
const crypto = () => process.getBuiltinModule('node:crypto');

export const randomUUID = (): string => crypto().randomUUID();

export const randomHex = (bytes: number): string => crypto().randomBytes(bytes).toString('hex');

export const createHash = (algorithm: string): Hash => crypto().createHash(algorithm);
