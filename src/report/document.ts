// The run document, re-exported for the report layer (it is defined in src/document/run.ts). Writing it, or a
// report, to a file the user named is src/cli/output.ts.

export {
  DOCUMENT_SCHEMA,
  DOCUMENT_VERSION,
  buildDocument,
  documentWitness,
  measurementToJson,
  type RunDocument,
} from '../document/run.js';
