"""Logging: journald priority prefixes under systemd, timestamps elsewhere."""

from __future__ import annotations

import io
import logging
import os
import re
import tempfile
from collections.abc import Iterator

import pytest

from controller.system.logs import level_number, setup_logging, syslog_priority, under_journal

pytestmark = pytest.mark.timeout(10)


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
    root.setLevel(level)


def test_priorities() -> None:
    assert [
        syslog_priority(lv)
        for lv in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL)
    ] == [7, 6, 4, 3, 2]
    assert syslog_priority(25) == 6  # a custom level between INFO and WARNING


def test_under_systemd_lines_have_priority_and_no_timestamp() -> None:
    out = io.StringIO()
    setup_logging("debug", stream=out, env={"INVOCATION_ID": "abc123"})
    log = logging.getLogger("toptable.test")
    log.debug("d")
    log.info("table ready")
    log.warning("camera lost")
    log.error("board unplugged")
    assert out.getvalue().splitlines() == [
        "<7>toptable.test: d",
        "<6>toptable.test: table ready",
        "<4>toptable.test: camera lost",
        "<3>toptable.test: board unplugged",
    ]


def test_every_line_of_a_traceback_gets_the_prefix() -> None:
    out = io.StringIO()
    setup_logging("info", stream=out, env={"INVOCATION_ID": "x"})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("t").exception("loop failed")
    lines = out.getvalue().splitlines()
    assert lines[0] == "<3>t: loop failed"
    assert len(lines) > 2
    assert all(line.startswith("<3>") for line in lines)
    assert lines[-1] == "<3>RuntimeError: boom"


def test_outside_systemd_lines_have_timestamps() -> None:
    out = io.StringIO()
    setup_logging("info", stream=out, env={})
    logging.getLogger("toptable.test").info("hello")
    logging.getLogger("toptable.test").debug("hidden")
    (line,) = out.getvalue().splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO    toptable\.test: hello", line)


def test_journal_stream_counts_only_when_it_is_our_stderr() -> None:
    with tempfile.TemporaryFile("w+") as f:
        st = os.fstat(f.fileno())
        assert under_journal({"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}, f)
        assert not under_journal({"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"}, f)
    assert not under_journal({}, io.StringIO())
    assert under_journal({"JOURNAL_STREAM": "8:1234"}, io.StringIO())  # no fd: trust it


def test_setup_replaces_its_own_handler_only() -> None:
    root = logging.getLogger()
    other = logging.NullHandler()
    root.addHandler(other)
    first = setup_logging("info", stream=io.StringIO(), env={})
    second = setup_logging("warning", stream=io.StringIO(), env={})
    assert first not in root.handlers
    assert second in root.handlers and other in root.handlers
    assert root.level == logging.WARNING
    root.removeHandler(other)


def test_levels() -> None:
    assert level_number("DEBUG") == logging.DEBUG
    assert level_number(logging.ERROR) == logging.ERROR
    with pytest.raises(ValueError, match="unknown log level 'loud'"):
        level_number("loud")
