"""Every ``toptable`` command, one module per group; :mod:`.main` is the entry point.

Owns: argument parsing, printing and exit codes. A group module has
``register(subparsers)``; its functions import the library they drive.
May import: every other package. Nothing imports this package.
"""
