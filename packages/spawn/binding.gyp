{
  "targets": [
    {
      "target_name": "forklab_spawn",
      "sources": ["native/addon.c", "native/compat.c", "native/permission.c", "native/spawn_child.c", "native/spawn_search.c", "native/reaper.c", "native/spawn_sync.c", "native/sync_binding.c", "native/watch.c"],
      "libraries": ["-ldl", "-lpthread"],
      "ldflags": ["-Wl,--version-script=<(module_root_dir)/native/exports.map"],
      "cflags": ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["_GNU_SOURCE", "NAPI_VERSION=8"]
    }
  ]
}
