#!/usr/bin/env bash
# Prints a python3 that has Jinja2: the one on PATH if it does, else Debian's.
if python3 -c 'import jinja2' >/dev/null 2>&1; then command -v python3
elif /usr/bin/python3 -c 'import jinja2' >/dev/null 2>&1; then echo /usr/bin/python3
else command -v python3; fi
