"""The root of every error aesgen reports to its user in one line (the CLI catches it)."""


class AesgenError(Exception):
    """A problem with the input (targets, profiles, templates, options) or an emitted
    program that the model or the assembler rejects."""
