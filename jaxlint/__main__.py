import sys

try:
    from jaxlint.cli import main
except KeyboardInterrupt:  # Ctrl-C while jaxlint loads: no traceback (as cli.main does later)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
