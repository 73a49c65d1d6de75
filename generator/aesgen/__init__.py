"""aesgen: a generator of specialised AES sources (see README.md at the repository root).

Run it as `PYTHONPATH=generator python3 -m aesgen --help`.
"""

# Bumped by hand when generated output changes for reasons other than its inputs;
# not a git hash, or every commit would rewrite every generated file.
__version__ = "0.1.0"
