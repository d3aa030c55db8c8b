"""Companion modes: the table keeps the numbers of other Dragon Ball games (issue 15).

The cards stay in the players' hands; the table keeps life, levels, markers, fans,
whose turn it is, and says which actions the rules allow now.

What this package owns:

* ``base`` -- the one object a mode is (:class:`base.CompanionMode`): its game kind
  (:class:`~controller.core.kinds.GameKind`), its title on the screens, its main number
  (what the scoreboard shows), ``seat_summary(player)`` (its numbers written short), its
  actions, and its pure rules: ``new_game(players, data=None, source="script") -> state``,
  ``whose_turn(state)``, ``step(state)`` (a label), ``legal_actions(state, player) ->
  tuple[Offer, ...]`` (what to offer to whom), ``apply(state, action) -> state`` (raises
  :class:`base.RuleViolationError`, an ``IllegalActionError`` whose ``rule`` names the rule
  that forbids the action) and ``to_json(state)``; plus :func:`base.read_action` /
  :func:`base.parse_action` (JSON -> action; every problem noted in the one collector,
  ``controller.core.checked.Problems``) and :func:`base.action_to_json` (its inverse).
* the pure rules of each mode -- ``dbs_tournament`` (Dragon Ball Super Card Game Masters,
  Tournament of Power format) and ``dbz_tcg`` (Dragon Ball Z TCG), packages of ``model``
  (data, state, actions) and ``rules``, and ``challengers`` (Challengers!; its data,
  state and actions in ``challengers_model``): frozen dataclasses, enums for closed sets,
  ``None`` for absence; no I/O after loading data, no clock, no randomness. Each exposes
  ``MODE`` (the interface) and its plain functions.
* ``data/*.toml`` -- each mode's numbers, checked by ``datafile`` (invented values are
  marked INVENTED in the files); a script's ``"data"`` object overrides them.
* ``registry.MODES`` / ``registry.get_mode(kind)`` (the modes by game kind),
  ``replay.replay(mode, script)``, the bots (``bots``) and the button entry (``entry``);
* ``journal`` -- a companion game's journal (:mod:`controller.storage`): the actions
  taken and refused, typed, in SQLite before the table acts on them.

Adding a mode: its module, its data file, its ``GameKind`` member and its line in
``registry``; the table, the screens, the publisher and the demo ask the mode object.

What it may import: the standard library, ``controller.core`` and ``controller.storage``.

The modes, the referee decisions where the rule texts are silent, and the script format
are in ``README.md`` beside this file.
"""
