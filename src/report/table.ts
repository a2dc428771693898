// The text primitives the terminal views use, from src/text/ (tables, numbers), under their old names.
export { renderTable, type TableOptions } from '../text/table.js';
export { fmtNs, fmtPct, fmtRatio, fmtUs, fmtUsCi } from '../text/format.js';
