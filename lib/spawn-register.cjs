// forklab/spawn/register for require() and `node -r forklab/spawn/register app.js` (see docs/spawn.md).
module.exports = require('@forklab/spawn/register');
