// Loaded with --import by the reference process that a case under register is compared with, when the case
// forks: a forked child inherits its parent's --import (process.execArgv), and Node loads the child's main module
// through its ES module loader when there is one, which changes what a child that fails to load prints.
