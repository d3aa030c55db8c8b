"""The leaf every other package stands on: errors, event base, symbols, TOML reading.

Owns: the exception tree (:mod:`.errors`), the :class:`~.events.Event` base of
every typed event, the dice symbols and attack speeds (:mod:`.symbols`), the
one TOML reader (:mod:`.tomlfile`), the one "collect every problem" helper, how a
problem shows what came from the input (:mod:`.quoting`: names escaped, values cut
short), and the config reader every section's schema uses (:mod:`.config_schema`: Klipper-
style problems, the option converters, the Pi header's pins).
May import: the standard library and third-party packages only — never another
part of the project. vision/ and hardware/ import nothing of the controller but
this package.
"""
