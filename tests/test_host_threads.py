"""The host backend's thread pool: a forked child and several Python threads.

The pool's workers are made on the first large op. fork() copies only the
calling thread, so a child must make a pool of its own rather than wait for
workers that do not exist; and a second Python thread that calls while the
pool is busy runs its op alone. Each case runs in a fresh interpreter, with
a timeout, so that a hang fails the test instead of stopping the suite.
"""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import os, threading, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import gpuvec as gv

    x = np.arange(2**20, dtype=np.float64)
    expected = float(gv.sum(x))  # starts the pool's workers

    if hasattr(os, "fork"):
        pid = os.fork()
        if pid == 0:
            ok = float(gv.sum(x)) == expected and np.array_equal(gv.add(x, x), x + x)
            os._exit(0 if ok else 1)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, "the child's op failed"

    results = []
    def calls():
        results.extend(float(gv.sum(x)) for _ in range(50))
    threads = [threading.Thread(target=calls) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 150
    """
)


@pytest.mark.parametrize("threads", ["1", "3"])
def test_fork_and_threads(threads):
    env = dict(os.environ, GPUVEC_BACKEND="host", GPUVEC_NUM_THREADS=threads)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
