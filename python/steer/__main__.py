"""`python -m steer` runs the command line."""

from steer.cli import main

main()
