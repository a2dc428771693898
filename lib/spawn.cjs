// forklab/spawn for require(): the @forklab/spawn package, re-exported (see docs/spawn.md).
module.exports = require('@forklab/spawn');
