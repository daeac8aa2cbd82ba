#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A setting that cannot work (config/settings_env.py names the variable): its one
        # line, not a traceback through the settings module. --traceback shows it all.
        if "--traceback" in sys.argv:
            raise
        sys.exit(f"Configuration error: {exc}")


if __name__ == "__main__":
    main()
