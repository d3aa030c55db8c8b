"""Host side of the table's devices: board link, displays, controls, and their simulations.

Each subpackage owns its device, its simulated backend and its config section.
May import: controller.core and firmware (the wire format) only.
"""
