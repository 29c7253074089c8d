/** A reader for systemd unit files: sections of `Key=value` lines, a key may repeat. */
export type UnitFile = Map<string, Map<string, string[]>>;

export function parseUnit(text: string): UnitFile {
  const unit: UnitFile = new Map();
  let section: Map<string, string[]> | null = null;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = pending + raw.trim();
    if (line.endsWith('\\')) {
      pending = `${line.slice(0, -1)} `;
      continue;
    }
    pending = '';
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = unit.get(header[1] as string) ?? new Map();
      unit.set(header[1] as string, section);
      continue;
    }
    if (!section) throw new Error(`a setting before the first [section]: ${line}`);
    const at = line.indexOf('=');
    if (at === -1) throw new Error(`not a Key=value line: ${line}`);
    const key = line.slice(0, at).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(at + 1).trim()]);
  }
  return unit;
}

/** The value a key ends with (systemd: the last assignment wins), or undefined. */
export function setting(unit: UnitFile, section: string, key: string): string | undefined {
  return unit.get(section)?.get(key)?.at(-1);
}

/** A list-valued key (capabilities, paths): every assignment's words, an empty one resetting. */
export function listSetting(unit: UnitFile, section: string, key: string): string[] {
  let out: string[] = [];
  for (const value of unit.get(section)?.get(key) ?? []) {
    out = value === '' ? [] : [...out, ...value.split(/\s+/)];
  }
  return out;
}
