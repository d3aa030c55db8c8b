"""Running a call as another user: rights are checked as ``nobody`` really has them
(the tests may run as root, who may open and write anywhere)."""

from __future__ import annotations

import os
from collections.abc import Callable

from controller.core.errors import TopTableError

NOBODY = 65534


def as_nobody(call: Callable[[], object]) -> tuple[int, str]:
    """``call()`` run by ``nobody`` (or, not running as root, by this user); returns 2 and
    the one line of the error toptable raised on purpose, 0 and "" if none, 70 and the
    error if another one escaped."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code, text = 70, ""
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            call()
            code = 0
        except TopTableError as exc:
            code, text = 2, f"{exc}\n"
        except BaseException as exc:  # the child must never return into pytest
            text = f"{type(exc).__name__}: {exc}\n"
        finally:
            os.write(write, text.encode())
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        err = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), err
