/**
 * A device number as Node's `Stats.dev` carries it: glibc's `makedev` layout (the kernel's
 * `new_encode_dev` for the low 32 bits), where the minor's low byte sits below the major and its
 * high bits above it. /proc shows major and minor apart (`/proc/<pid>/maps`, mountinfo), and a
 * minor of 256 or more, common for the anonymous devices of tmpfs or overlayfs, is where a naive
 * `major << 8 | minor` goes wrong.
 */
export function deviceNumber(major: number, minor: number): number {
  if (major < 0x1000 && minor < 0x100000) {
    // Fits in 32 bits: exact as a double, no BigInt needed on the common path.
    return (minor & 0xff) + (major & 0xfff) * 0x100 + (minor - (minor & 0xff)) * 0x1000;
  }
  const big =
    ((BigInt(major) & 0xfffff000n) << 32n) |
    ((BigInt(major) & 0xfffn) << 8n) |
    ((BigInt(minor) & 0xffffff00n) << 12n) |
    (BigInt(minor) & 0xffn);
  // Rounded to a double as Node rounds a dev_t above 2^53: both sides of a comparison agree.
  return Number(big);
}

/** `major:minor` in hexadecimal, as /proc/<pid>/maps writes it (`fd:01`); NaN when malformed. */
export function parseHexDevice(text: string): number {
  const match = /^([0-9a-f]+):([0-9a-f]+)$/i.exec(text);
  return match
    ? deviceNumber(Number.parseInt(match[1] as string, 16), Number.parseInt(match[2] as string, 16))
    : Number.NaN;
}

/** `major:minor` in decimal, as mountinfo writes it (`254:1`); NaN when malformed. */
export function parseDecimalDevice(text: string): number {
  const match = /^(\d+):(\d+)$/.exec(text);
  return match ? deviceNumber(Number(match[1]), Number(match[2])) : Number.NaN;
}
