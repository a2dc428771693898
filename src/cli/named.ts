// What a RUN argument names, the same for every command that reads runs (judge, show, export, compare, report):
// a file (a run document from --json or export, or a forklab reproduce --json file), a reproduction (R1, Rlatest:
// the runs it rests on that are still in the history), or a stored run (id, uuid prefix, latest, latest~N).
import { existsSync, statSync } from 'node:fs';
import type { RunDocument } from '../document/run.js';
import { DocumentError, parseRunDocument, validateRunDocument } from '../document/validate.js';
import { asReproduceDocument, reproductionInText, type ReproduceDocument } from '../claims/reproduction.js';
import { isReproductionRef, type Store } from '../store/db.js';
import { CliError } from './errors.js';
import { readInputFile } from './input.js';

/** The forms of a stored run or reproduction: a file of that name is read only when it has a / or a dot in it. */
const STORED_FORM = /^(\d+|[0-9a-f-]{4,36}|latest(~\d+|:[a-z][a-z0-9-]*)?|r(\d+|latest)?)$/i;

/** Does REF name a file ("-": standard input)? A name a run could have (3, latest, R1) is a file only when written as one (./3). */
export function isFileRef(ref: string): boolean {
  if (ref === '-') return true;
  if (!existsSync(ref)) return false;
  try {
    if (statSync(ref).isDirectory()) return false;
  } catch {
    return false;
  }
  return /[/.]/.test(ref) || !STORED_FORM.test(ref.trim());
}

export interface NamedRuns {
  /** The run documents, in order. */
  docs: RunDocument[];
  /** How the argument is shown: "run 3", "R1", "run.json". */
  shown: string;
  /** The stored run's number (a single stored run only). */
  id: number | null;
  /** The reproduction, when the argument names one (R1, or a reproduce --json file). */
  reproduction: { ref: string; doc: ReproduceDocument; missing: number } | null;
}

/** A file's runs: one run document, or those a reproduce --json file holds (whole, or by id from the history). */
export function runsInFile(file: string, store: () => Store): NamedRuns {
  const text = readInputFile(file);
  try {
    const repro = reproductionInText(text, file, 'runs');
    if (repro) {
      const docs = repro.runs.map((r) => (typeof r === 'string' ? store().getDocument(store().resolveRun(r)) : validateRunDocument(r)));
      return { docs, shown: file, id: null, reproduction: { ref: file, doc: repro, missing: 0 } };
    }
    return { docs: [parseRunDocument(text)], shown: file, id: null, reproduction: null };
  } catch (e) {
    if (e instanceof DocumentError || e instanceof SyntaxError)
      throw new CliError(`${file}: ${e.message}`, 2, 'give a run document (forklab export RUN > run.json) or a forklab reproduce --json file');
    throw e;
  }
}

/** The runs REF names; `store` opens the history when it is needed (a file of whole documents needs none). */
export function namedRuns(ref: string, store: () => Store): NamedRuns {
  if (isFileRef(ref)) return runsInFile(ref, store);
  if (isReproductionRef(ref)) {
    const s = store();
    const id = s.resolveReproduction(ref);
    const r = s.getReproduction(id);
    const found = r.runUuids.map((u) => s.documentByUuid(u));
    const docs = found.filter((d): d is RunDocument => d !== null);
    if (docs.length === 0) throw new CliError(`reproduction R${id}: none of its ${r.runUuids.length} runs is in the history any more (forklab rm)`);
    return { docs, shown: `R${id}`, id: null, reproduction: { ref: `R${id}`, doc: asReproduceDocument(r.document, `reproduction R${id}`), missing: found.length - docs.length } };
  }
  const s = store();
  const id = s.resolveRun(ref);
  return { docs: [s.getDocument(id)], shown: `run ${id}`, id, reproduction: null };
}

/** One run: a reproduction (or a file of several runs) is refused, naming what to give instead. */
export function oneRun(named: NamedRuns, what: string): RunDocument {
  if (named.docs.length === 1 && !named.reproduction) return named.docs[0]!;
  throw new CliError(`${named.shown} holds ${named.docs.length} runs; ${what} takes one run (forklab show ${named.shown} lists them)`);
}
