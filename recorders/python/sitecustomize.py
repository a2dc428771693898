# forklab trace's recorder for Python, loaded as `sitecustomize` from a directory forklab puts first on PYTHONPATH
# (before whatever the user has there). On Python 3.8 and later it adds an audit hook (sys.addaudithook) that
# records each subprocess.Popen, os.posix_spawn, os.fork, os.forkpty, os.system and os.exec* call: the command,
# the Python stack of the caller outside the standard library (file, line, column, function), the process and
# thread, the time, and the hook's own time. One JSON line per call goes to a file beside this directory
# (../out/python-PID.jsonl), which forklab owns: never to the program's stdout or stderr. Then it takes its
# directory off sys.path and runs the sitecustomize the program would have had without it (a distribution's, a
# virtualenv's, the user's), as `sitecustomize`. It changes no call: an audit hook only observes.
# Written to be read by any Python (no f-strings), so that an old interpreter on the same PATH is not disturbed.
import sys


def _forklab_trace_start():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(os.path.dirname(here), "out")
    if hasattr(sys, "addaudithook"):
        try:
            _install(os, here, out)
        except Exception:
            pass
    sys.path[:] = [p for p in sys.path if _same(os, p, here) is False]
    return here


def _same(os, p, here):
    try:
        return os.path.abspath(p or ".") == here
    except Exception:
        return False


def _install(os, here, out):
    import _thread
    import time

    watched = frozenset(("subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.system", "os.exec", "os.spawn"))
    me = os.path.abspath(__file__)
    state = {"fd": -1, "pid": -1, "broken": False, "stdlib": None, "busy": False}
    loaded = time.perf_counter()

    def stdlib():
        if state["stdlib"] is None:
            roots = []
            for name in ("os", "subprocess"):
                f = getattr(sys.modules.get(name), "__file__", None)
                if f:
                    roots.append(os.path.dirname(os.path.abspath(f)) + os.sep)
            state["stdlib"] = tuple(sorted(set(roots)))
        return state["stdlib"]

    def internal(filename):
        if filename.startswith("<frozen ") or filename == me:
            return True
        if "site-packages" in filename or "dist-packages" in filename:
            return False
        return filename.startswith(stdlib())

    def column(frame):
        positions = getattr(frame.f_code, "co_positions", None)
        if positions is None or frame.f_lasti < 0:
            return None
        want = frame.f_lasti // 2
        for i, p in enumerate(positions()):
            if i == want:
                return None if p[2] is None else p[2] + 1
        return None

    def frames(frame):
        kept = []
        depth = 0
        while frame is not None and len(kept) < 24 and depth < 200:
            code = frame.f_code
            if not internal(code.co_filename):
                kept.append([code.co_filename, frame.f_lineno, column(frame) if len(kept) < 8 else None, code.co_name, ""])
            frame = frame.f_back
            depth += 1
        return kept

    def text(x):
        if isinstance(x, str):
            return x[:300]
        if isinstance(x, bytes):
            return x[:300].decode("utf-8", "replace")
        if isinstance(x, int) and not isinstance(x, bool):
            return str(x)
        return "?"

    def q(s):
        out = ['"']
        for ch in s:
            o = ord(ch)
            if ch == '"' or ch == "\\":
                out.append("\\" + ch)
            elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
                out.append("\\u%04x" % o)
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    def js(v):
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return q(v)
        if isinstance(v, (list, tuple)):
            return "[" + ",".join(js(x) for x in v) + "]"
        return "{" + ",".join(q(k) + ":" + js(x) for k, x in v.items()) + "}"

    def write(rec):
        pid = os.getpid()
        if state["pid"] != pid:  # the first call here, or a forked child: a file of its own
            state["pid"] = pid
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            state["fd"] = os.open(os.path.join(out, "python-%d.jsonl" % pid), flags, 0o600)
            start = {"k": "start", "rt": "python", "pid": pid, "ppid": os.getppid(), "v": sys.version.split()[0], "exe": sys.executable or ""}
            start["loadUs"] = round(load_us, 1)
            os.write(state["fd"], (js(start) + "\n").encode("utf-8", "replace"))
        os.write(state["fd"], (js(rec) + "\n").encode("utf-8", "replace"))

    def command(event, args):
        if event == "subprocess.Popen":
            exe, argv = args[0], args[1]
        elif event in ("os.posix_spawn", "os.exec"):
            exe, argv = args[0], args[1]
        elif event == "os.system":
            exe, argv = args[0], None
        elif event == "os.spawn":
            exe, argv = args[1], args[2]
        else:
            return "", []
        if isinstance(argv, (list, tuple)):
            items = [text(a) for a in list(argv)[:8]]
        elif argv is None:
            items = []
        else:
            items = [text(argv)]
        head = text(exe) if exe is not None else (items[0] if items else "")
        return head, items

    def hook(event, args):
        if event not in watched or state["busy"] or state["broken"]:
            return
        c0 = time.perf_counter()
        state["busy"] = True
        try:
            caller = sys._getframe(1)
            # Popen's own posix_spawn (its _posix_spawn) belongs to the Popen call already recorded.
            where = caller.f_code.co_filename
            if event == "os.posix_spawn" and where.endswith("subprocess.py") and internal(where):
                return
            head, argv = command(event, args)
            rec = {"k": "call", "fn": event, "cmd": head, "argv": argv, "pid": os.getpid(), "tid": _thread.get_native_id(), "t0": time.time()}
            rec["frames"] = frames(caller)
            rec["costUs"] = round((time.perf_counter() - c0) * 1e6, 1)
            write(rec)
        except Exception:
            state["broken"] = True
        finally:
            state["busy"] = False

    load_us = (time.perf_counter() - loaded) * 1e6
    sys.addaudithook(hook)


def _forklab_trace_chain(here):
    """Runs the sitecustomize the program would have had without this one (a distribution's, a virtualenv's)."""
    try:
        from importlib.machinery import PathFinder
        import importlib.util
    except ImportError:
        PathFinder = None
    if PathFinder is not None:
        spec = PathFinder.find_spec("sitecustomize", sys.path)
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
        return
    import imp

    try:
        found = imp.find_module("sitecustomize", sys.path)
    except ImportError:
        return
    try:
        imp.load_module("sitecustomize", *found)
    finally:
        if found[0]:
            found[0].close()


_forklab_trace_chain(_forklab_trace_start())
