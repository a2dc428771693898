export { FORKLAB_VERSION } from '../version.js';
