"""`python -m certirank` runs the command line."""

from .cli import main

main()
