"""Companion modes: the table keeps the numbers of other Dragon Ball games (issue 15).

The cards stay in the players' hands; the table keeps life, levels, markers, fans,
whose turn it is, and says which actions the rules allow now.

What this package owns:

* ``base`` -- the interface every mode implements (:class:`base.CompanionMode`):
  ``new_game(players, data=None, source="script") -> state``, ``whose_turn(state)``,
  ``step(state)`` (a label), ``legal_actions(state, player) -> tuple[Offer, ...]`` (what
  to offer to whom), ``apply(state, action) -> state`` (raises :class:`base.RuleViolationError`,
  an ``IllegalActionError`` whose ``rule`` names the rule that forbids the action) and
  ``to_json(state)``; plus :func:`base.read_action` / :func:`base.parse_action` (JSON ->
  action; every problem noted in the one collector, ``controller.core.checked.Problems``).
* the pure rules of each mode -- ``dbs_tournament`` (Dragon Ball Super Card Game Masters,
  Tournament of Power format) and ``dbz_tcg`` (Dragon Ball Z TCG), packages of ``model``
  (data, state, actions) and ``rules``, and ``challengers`` (Challengers!; its data,
  state and actions in ``challengers_model``): frozen dataclasses, enums for closed sets,
  ``None`` for absence; no I/O after loading data, no clock, no randomness. Each exposes
  ``MODE`` (the interface) and its plain functions.
* ``data/*.toml`` -- each mode's numbers, checked by ``datafile`` (invented values are
  marked INVENTED in the files); a script's ``"data"`` object overrides them.
* ``registry.MODES`` / ``registry.get_mode(name)``, ``replay.replay(mode, script)`` and
  ``command.register(sub)`` (``toptable companion MODE replay SCRIPT.json --json``).

What it may import: the standard library and ``controller.core.*`` only.

The modes, the referee decisions where the rule texts are silent, and the script format
are in ``README.md`` beside this file.
"""
