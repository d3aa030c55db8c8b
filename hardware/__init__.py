"""Host side of the table's devices: board link, displays, controls, and their simulations."""
