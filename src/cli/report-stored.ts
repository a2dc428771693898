// `forklab report` wired to the history: the stored run, reproduction or judgement it renders.
import type { Command } from 'commander';
import type { RunDocument } from '../document/run.js';
import { openDatabase } from './database.js';
import { runJudge } from './judge.js';
import { registerReportCommand } from './report.js';

/** A stored run by reference (id, uuid prefix, latest), for `forklab report`. */
function loadStoredRun(ref: string | undefined, dbPath: string | undefined): RunDocument {
  const { store } = openDatabase(dbPath, { create: false, write: false });
  try {
    return store.getDocument(store.resolveRun(ref ?? 'latest'));
  } finally {
    store.close();
  }
}

/** 'R<n>' when the latest thing made is a reproduction; null otherwise (or without a history: loadStoredRun says so). */
function latestReproduction(dbPath: string | undefined): string | null {
  try {
    const { store } = openDatabase(dbPath, { create: false, write: false });
    try {
      const made = store.latestMade();
      return made?.kind === 'reproduction' ? `R${made.id}` : null;
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}

/** A stored reproduction (R<n>, Rlatest) and the runs of it that are still in the history. */
function loadStoredReproduction(ref: string, dbPath: string | undefined): { doc: unknown; runs: RunDocument[]; missing: number } {
  const { store } = openDatabase(dbPath, { create: false, write: false });
  try {
    const r = store.getReproduction(store.resolveReproduction(ref));
    const runs = r.runUuids.map((u) => store.documentByUuid(u));
    return { doc: r.document, runs: runs.filter((d): d is RunDocument => d !== null), missing: runs.filter((d) => d === null).length };
  } finally {
    store.close();
  }
}

/** Adds `forklab report`, reading the history. */
export function registerStoredReport(program: Command): void {
  registerReportCommand(program, {
    loadRun: loadStoredRun,
    loadReproduction: loadStoredReproduction,
    latestReproduction,
    judgeJson: (refs, o) => runJudge(refs, { json: o.json, db: o.db }),
  });
}
