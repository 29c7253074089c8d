import path from 'node:path';
import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, nonEmptyString, pathList } from '../../config/sections.js';

/** `providers.claude-code` of the config file, with its defaults. */
export const claudeCodeSection = z
  .strictObject({
    enabled,
    /**
     * The folders that hold the `claude-<uid>` roots, instead of `$CLAUDE_CODE_TMPDIR`, `$TMPDIR`
     * or `/tmp` (a sandbox, a host whose users set their own TMPDIR).
     */
    tmpDir: pathList
      .refine((paths) => paths.every((each) => path.isAbsolute(each)), { message: 'expected absolute paths' })
      .optional(),
    /**
     * Where Claude Code's managed settings are (`managed-settings.json`, `managed-settings.d/`), whose
     * `cleanupPeriodDays` counts for its retention, instead of `/etc/claude-code` (the host's, mounted
     * elsewhere in a pod).
     */
    managedSettingsDir: nonEmptyString
      .refine((dir) => path.isAbsolute(dir), { message: 'expected an absolute path' })
      .optional(),
  })
  .prefault({});

type ClaudeCodeSection = z.output<typeof claudeCodeSection>;

/** This provider's section of a loaded config. */
export const claudeCodeConfig = (config: EffectiveConfig): ClaudeCodeSection =>
  claudeCodeSection.parse(config.providers['claude-code']);
