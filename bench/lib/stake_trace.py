"""A pytest plugin that records what a test suite really runs, for bench/stake.mjs.

Loaded with ``-p stake_trace`` (this folder on PYTHONPATH). While each test runs (its setup, call and
teardown: the function-scoped fixtures it requests run for it, as a test-unit or minitest ``setup``
does), a ``sys.setprofile`` hook sees every Python function call. It keeps the calls whose callee is defined in
the project (a file under STAKE_ROOT, outside any virtualenv or site-packages):

- the dynamic call edges: caller code -> callee code, where the caller is the nearest project frame
  on the stack (library frames in between are skipped: a callback handed to a library is still
  called from the project code that handed it over only when no library frame is in between, so
  those edges are kept apart as ``via_library``);
- per test function, the project functions it executed.

Anonymous code (lambdas, comprehensions, generator expressions) is counted as the named function
that defines it: what it calls, that function calls, and a test that runs it runs that function. But
whoever calls a lambda (``ProgressBar`` calling a test's ``item_show_func=lambda …``) does not call the
function that defines it, so calls *into* anonymous code are no edges. At the end of the session it writes one JSON file (STAKE_OUT):

  {"root": ..., "functions": [[path, qualname, first_line, is_test], ...],
   "edges": [[caller, callee, via_library, call_line], ...],
   "tests": [[function_index, node_ids...], ...],
   "executed": {function_index: [test_index, ...]}}
"""

import inspect
import json
import os
import sys
import threading

import pytest

ROOT = os.path.realpath(os.environ.get("STAKE_ROOT", os.getcwd()))
OUT = os.environ.get("STAKE_OUT", "stake-trace.json")
SKIP_PARTS = ("site-packages", "/.venv", "/venv/", "/.tox/", "/bench/lib/")


def is_anonymous(code):
    return code.co_name.startswith("<") and code.co_name != "<module>"


class Recorder:
    def __init__(self):
        self.functions = []  # [path, qualname, first_line, is_test]
        self.index = {}  # code object -> function index (or -1: not project code)
        self.named = {}  # (path, qualname) -> function index of named code
        self.edges = {}  # (caller, callee) -> (via_library, a line of the call)
        self.executed = {}  # function index -> set of test indexes
        self.tests = []  # [function index, nodeids]
        self.test_by_fn = {}
        self.current = None
        self.active = False

    def project_path(self, filename):
        if not filename or filename.startswith("<"):
            return None
        real = os.path.realpath(filename)
        if not real.startswith(ROOT + os.sep) or any(p in real for p in SKIP_PARTS):
            return None
        return os.path.relpath(real, ROOT).replace(os.sep, "/")

    def fn_of(self, code):
        hit = self.index.get(code)
        if hit is not None:
            return hit
        path = self.project_path(code.co_filename)
        if path is None:
            self.index[code] = -1
            return -1
        qual = getattr(code, "co_qualname", code.co_name).replace("<locals>.", "")
        parts = qual.split(".")
        if is_anonymous(code):
            # a lambda or comprehension: the named function that defines it
            named = [p for p in parts if not p.startswith("<")]
            owner = self.named.get((path, ".".join(named))) if named else None
            if owner is None:
                owner = self.named.get((path, "<module>"))
            if owner is None:
                owner = self.add(path, "<module>", 0, code)
            self.index[code] = owner
            return owner
        return self.add(path, qual, code.co_firstlineno, code)

    def add(self, path, qual, line, code):
        key = (path, qual)
        i = self.named.get(key)
        if i is None or self.functions[i][2] != line:
            i = len(self.functions)
            self.functions.append([path, qual, line, False])
            self.named[key] = i
        self.index[code] = i
        return i

    def profile(self, frame, event, _arg):
        if event != "call" or not self.active:
            return
        callee = self.fn_of(frame.f_code)
        if callee < 0:
            return
        if self.current is not None:
            self.executed.setdefault(callee, set()).add(self.current)
        if is_anonymous(frame.f_code):
            return
        via_library = False
        back = frame.f_back
        while back is not None:
            caller = self.fn_of(back.f_code)
            if caller >= 0:
                if caller != callee:
                    key = (caller, callee)
                    seen = self.edges.get(key)
                    if seen is None or (seen[0] and not via_library):
                        self.edges[key] = (via_library, back.f_lineno)
                return
            via_library = True
            back = back.f_back

    def test_index(self, item):
        fn = getattr(item, "function", None) or getattr(item, "obj", None)
        code = getattr(inspect.unwrap(fn), "__code__", None) if fn else None
        if code is None:
            return None
        f = self.fn_of(code)
        if f < 0:
            return None
        self.functions[f][3] = True
        t = self.test_by_fn.get(f)
        if t is None:
            t = len(self.tests)
            self.tests.append([f])
            self.test_by_fn[f] = t
        self.tests[t].append(item.nodeid)
        return t

    def write(self):
        data = {
            "root": ROOT,
            "functions": self.functions,
            "edges": [[a, b, v, line] for (a, b), (v, line) in self.edges.items()],
            "tests": self.tests,
            "executed": {str(k): sorted(v) for k, v in self.executed.items()},
        }
        with open(OUT, "w") as fh:
            json.dump(data, fh)


RECORDER = Recorder()


def pytest_configure(config):
    # threads started from now on (a test client's server thread) report too, while a test runs
    threading.setprofile(RECORDER.profile)


def traced(item):
    """Records one phase of a test (setup, call, teardown) as that test's."""
    RECORDER.current = RECORDER.test_index(item)
    RECORDER.active = True
    sys.setprofile(RECORDER.profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        RECORDER.active = False
        RECORDER.current = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from traced(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from traced(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from traced(item)


def pytest_sessionfinish(session, exitstatus):
    RECORDER.write()
