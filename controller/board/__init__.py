"""The table's view of the physical board: sensors to named warriors' moves.

Owns: the move tracker (lifts and places -> moves, :mod:`.tracker`), the sensor
map and its mapping wizard (:mod:`.sensor_map`), and the follower that feeds
the table's game from the board (:mod:`.follow`).
May import: core, gamedata (the board layout), game, table, and the board
link's event types from hardware.board; never daemon, demo or cli.
"""
