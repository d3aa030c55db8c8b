"""The dice bench's runs over N strangers or photos alone (``--leaning N``, ``--handheld N``,
``--unlabelled N``, ``--large N``, ``--played N``): their flags and what each measures, for both parsers
that take them (``toptable bench`` in :mod:`controller.cli.bench`, and the dice bench's own
in :mod:`controller.bench.dice`). No heavy imports: the command line reads it at start."""

from __future__ import annotations

# flag name -> what the run measures, after "only"
STRANGER_RUNS: dict[str, str] = {
    "leaning": "whether N strangers' leaning (cocked) dice are flagged",
    "handheld": "N strangers photographed by hand, read at the learned die size and at "
    "the size found in each photo",
    "unlabelled": "whether calibration names the dice N strangers' owners left without a label",
    "large": "a large labelled set: N photos of a crowded tray calibrated with their check on "
    "one core (the photos learned from, the time, the peak memory)",
    "played": "N strangers of few dice a photo: new photos read before and after learning 50 "
    "throws played at the table (asked dice answered)",
}
