"""The one exception type users see: a message naming the problem and the fix."""


class JupiterError(Exception):
    """An error the user can act on. The CLI prints it on one line, without a traceback."""
