"""The listing of a package's commands (``python -m tools``,
``python -m study``): one line each, and ``python -m PACKAGE COMMAND
ARGS`` runs ``python -m PACKAGE.COMMAND ARGS``."""
import runpy
import sys


def main(package, commands, argv=None):
    """Print ``commands`` ({module: one line}) or run the one named."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        width = max(map(len, commands))
        print(f"usage: python -m {package} COMMAND [ARGS] "
              f"(or python -m {package}.COMMAND [ARGS])\n\ncommands:")
        for name, line in commands.items():
            print(f"  {name:<{width}}  {line}")
        print(f"\n`python -m {package}.COMMAND --help` gives a command's "
              "arguments.")
        return 0
    name = argv[0]
    if name not in commands:
        print(f"python -m {package}: unknown command {name!r}; the "
              f"commands are {', '.join(commands)}", file=sys.stderr)
        return 2
    sys.argv = [f"{package}.{name}"] + list(argv[1:])
    runpy.run_module(f"{package}.{name}", run_name="__main__",
                     alter_sys=True)
    return 0
