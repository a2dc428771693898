// Go: the go compiler on PATH, /usr/local/go/bin or ~/go/bin; os/exec. Its driver (drivers/go/main.go, the
// standard library only) is built once with the go found, with nothing downloaded.
import { join } from 'node:path';
import { home, inHome, onPath } from '../locations.js';
import { versionFrom } from '../probe.js';
import { type FamilySpec, variant } from '../spec.js';

export const go: FamilySpec<'go'> = {
  family: 'go',
  namePrefixes: ['go'],
  nameParts: 2,
  install: 'apt-get install golang-go',
  heapKinds: ['slices'],
  variants: [variant('go', 'exec', 'exec.Command(target).Run()', 'os/exec Cmd.Run')],
  driverFiles: ['go/main.go'],
  candidates: ({ env }) => [...onPath('go', env), ...inHome('/usr/local/go/bin', 'go'), ...inHome(home(env, 'go', 'bin'), 'go')],
  probe: (exe, run) => versionFrom(exe, run, ['version'], /go version go(\d[\w.]*)/),
  // Built once into forklab's cache with this go (build.ts); the compiler is what was found.
  driver: (rt) => [rt.built ?? '/nonexistent/go-driver-not-built'],
  build: {
    source: join('go', 'main.go'),
    language: 'Go',
    tool: 'go build',
    shownArgs: 'build',
    command: ({ source, out, work, forklabVersion }) => ({
      args: ['build', '-trimpath', '-ldflags', `-X main.driverVersion=${forklabVersion}`, '-o', out, source],
      // One file, the standard library only: no module, no proxy, no toolchain download, no cgo; its caches in ours.
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPROXY: 'off',
        GOTOOLCHAIN: 'local',
        CGO_ENABLED: '0',
        GOFLAGS: '',
        GOCACHE: join(work, 'go-build'),
        GOPATH: join(work, 'gopath'),
      },
    }),
  },
};
