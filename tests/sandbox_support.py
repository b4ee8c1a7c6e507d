"""Running a user's kernel in a child process, for the tests of the host sandbox.

What these tests check could end the process that runs them when it goes
wrong (an abort, a stack overflow, a hang): each runs in a child Python on the
host backend, so that a regression fails one test instead of the run. The
child's script reports what happened as one JSON object on its last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What every child runs first: gpuvec on the host backend, and report(),
# which prints the result line.
PRELUDE = """
import json, os, signal, sys, time, warnings
import numpy as np
import gpuvec
from gpuvec import CudaError, OutOfMemoryError

def report(**fields):
    print(json.dumps(fields), flush=True)

def failure(call):
    try:
        call()
    except Exception as error:
        return {
            "type": type(error).__name__,
            "name": getattr(error, "name", None),
            "message": str(error),
            "oom": isinstance(error, OutOfMemoryError),
        }
    return None
"""


def child_env(**extra: str) -> dict:
    """The environment of a child: the host backend, and `extra`."""
    env = {**os.environ, "GPUVEC_BACKEND": "host"}
    env.pop("GPUVEC_KERNEL_TIMEOUT", None)  # the tests' own, where they set one
    env.update(extra)
    return env


def start_child(script: str, **extra: str) -> subprocess.Popen:
    """Starts `script` (after the prelude) in a child Python; its stdout is a text pipe."""
    # Run from outside the checkout, so that the child imports the gpuvec
    # under test (PYTHONPATH or the environment), not the source folder.
    return subprocess.Popen(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(ROOT),
        env=child_env(**extra),
    )


def run_child(script: str, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
    """Runs `script` (after the prelude) in a child Python on the host backend."""
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(ROOT),
        timeout=timeout,
        env=child_env(**extra),
    )


def child_result(script: str, timeout: float = 300, **extra: str) -> dict:
    """The JSON object the child's last line holds; fails the test if the child died."""
    done = run_child(script, timeout, **extra)
    assert done.returncode == 0, (
        f"the child exited with {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    )
    return json.loads(done.stdout.strip().splitlines()[-1])
