// The history writer lives with a run's life in src/lab/; this path stays for src/cli/run.ts until that moves too.
export { HistoryWriter } from '../lab/history-writer.js';
