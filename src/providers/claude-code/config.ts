import path from 'node:path';
import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

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
  })
  .prefault({});

type ClaudeCodeSection = z.output<typeof claudeCodeSection>;

/** This provider's section of a loaded config. */
export const claudeCodeConfig = (config: EffectiveConfig): ClaudeCodeSection =>
  claudeCodeSection.parse(config.providers['claude-code']);
