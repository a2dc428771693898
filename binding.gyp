{
  "target_defaults": {
    "cflags": ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    "cflags!": ["-fno-exceptions"],
    "defines": ["_GNU_SOURCE"]
  },
  "targets": [
    {
      "target_name": "forklab-probe",
      "type": "executable",
      "sources": [
        "native/probe.c",
        "native/region.c",
        "native/launch.c",
        "native/child.c",
        "native/emit.c",
        "<!@(node scripts/list-cases.mjs)"
      ],
      "defines": ["<!@(node scripts/probe-version.mjs)"],
      "libraries": ["-lpthread"]
    },
    {
      "target_name": "forklab-target-static",
      "type": "executable",
      "sources": ["native/target.c"],
      "ldflags": ["-static"]
    },
    {
      "target_name": "forklab-target-dynamic",
      "type": "executable",
      "sources": ["native/target.c"]
    },
    {
      "target_name": "forklab-loop",
      "type": "executable",
      "sources": ["native/loop.c", "native/region.c"],
      "libraries": ["-lpthread"]
    }
  ]
}
