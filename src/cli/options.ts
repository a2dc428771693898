// Option texts every command shares, so that --help says the same thing everywhere.

/** --db on every command that reads or writes the history. */
export const DB_HELP = 'the history database (default: $FORKLAB_DB, else $XDG_DATA_HOME/forklab/forklab.db, else ~/.local/share/forklab/forklab.db)';

/** --label on every measuring command. */
export const LABEL_HELP = 'a short text stored with the run (baseline, after-patch), shown by history and reports; history --label selects by it';

/** --target on the experiments that start a program (spawn, exec). */
export const TARGET_HELP =
  'measure starting this program (a path, or a name found in PATH) instead of the built-in `return 0` target; ' +
  'it gets the arguments after --, your environment, and /dev/null as stdin, stdout and stderr; it must exit 0';

/** A default as --help shows it: numbers with their unit, lists spaced ("0, 128, 512, 1024 MB"), no quotes. */
export function defaultText(value: string, unit?: string): string {
  const spaced = value
    .split(',')
    .map((v) => v.trim())
    .join(', ');
  return unit ? `${spaced} ${unit}` : spaced;
}
