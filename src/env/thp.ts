// The kernel's transparent huge page settings (/sys/kernel/mm/transparent_hugepage), read in one place: doctor's
// checks, the machine record, the experiments' THP warning and trace's cost model all ask here.
import { readTextOrNull, type ReadText } from './memory.js';
import { parseThpChoice } from './parse.js';

const THP_DIR = '/sys/kernel/mm/transparent_hugepage';

/** The two settings that are a bracketed choice. */
export type ThpSetting = 'enabled' | 'defrag';

/** The path of a file of the THP folder (enabled, defrag, hpage_pmd_size). */
export function thpPath(name: ThpSetting | 'hpage_pmd_size'): string {
  return `${THP_DIR}/${name}`;
}

/**
 * The bracketed choice of a setting ("always", "madvise", "never"; defrag also "defer", "defer+madvise"), read
 * through `read` (this machine's files by default, recorded text in doctor's facts); null when unreadable.
 */
export function readThpChoice(setting: ThpSetting, read: ReadText = readTextOrNull): string | null {
  const text = read(thpPath(setting));
  return text === null ? null : parseThpChoice(text);
}
