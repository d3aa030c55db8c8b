"""The shipped Mosquitto config of an evening, set up in a folder of its own.

The tests and ``toptable bench events`` run the broker with the very files a club
installs (``mosquitto-toptable.conf`` and ``.acl``), laid out as Debian lays them
out (a main config that sets ``persistence_location`` and includes ``conf.d/``);
only the port, the paths and the log change. So what is measured and tested is
what is shipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from controller.system.unit_files import BROKER_ACL, BROKER_CONFIG, shipped_text

INSTALLED = {  # the shipped file's lines that name the club's machine
    "listener 1883": "listener {port} 127.0.0.1",
    "password_file /etc/mosquitto/toptable.passwd": "password_file {directory}/toptable.passwd",
    "acl_file /etc/mosquitto/toptable.acl": "acl_file {directory}/toptable.acl",
}


@dataclass(frozen=True)
class BrokerFolder:
    """A broker's files in one folder: the main config to pass to ``mosquitto -c``."""

    config: Path
    password_file: Path  # empty: fill it with mosquitto_passwd
    database: Path  # where persistence saves (mosquitto.db)
    log: Path


def broker_folder(directory: Path, port: int) -> BrokerFolder:
    """Write the shipped broker config, ACL and a Debian-like main config into ``directory``.

    Raises:
        OSError: ``directory`` cannot be written.
    """
    conf_d = directory / "conf.d"
    conf_d.mkdir(parents=True, exist_ok=True)
    text = shipped_text(BROKER_CONFIG)
    for line, local in INSTALLED.items():
        if line not in text.splitlines():  # pragma: no cover - the shipped file is tested
            raise ValueError(f"{BROKER_CONFIG}: no line {line!r}")
        text = text.replace(
            f"\n{line}\n", "\n" + local.format(port=port, directory=directory) + "\n"
        )
    (conf_d / "toptable.conf").write_text(text, encoding="utf-8")
    (directory / "toptable.acl").write_text(shipped_text(BROKER_ACL), encoding="utf-8")
    passwd = directory / "toptable.passwd"
    passwd.touch(mode=0o600)
    log = directory / "mosquitto.log"
    main = [
        # /etc/mosquitto/mosquitto.conf as Debian ships it, in this folder
        "persistence true",
        f"persistence_location {directory}/",
        f"log_dest file {log}",
        f"include_dir {conf_d}",
    ]
    if os.geteuid() == 0:
        main.insert(0, "user root")  # else mosquitto drops to 'mosquitto', who cannot write here
    config = directory / "mosquitto.conf"
    config.write_text("\n".join(main) + "\n", encoding="utf-8")
    return BrokerFolder(config, passwd, directory / "mosquitto.db", log)
