"""One error type for every refused input, so the CLI and the app report it the same way."""

from __future__ import annotations


def brief(value: object, limit: int = 60) -> str:
    """``value`` as text for a message, cut to ``limit`` characters with a note of the full length
    (a header cell of 200,000 characters must not become a 200,000-character error)."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class InputError(ValueError):
    """A user-supplied file or frame was refused.

    ``file``, ``line`` (1-based, counting the header line when there is one) and ``column`` say
    where; any of them may be ``None`` when the problem is not tied to one place. ``problems``
    holds every problem when one check found several (the error itself then points at the first).
    ``code`` names the kind of problem (e.g. ``empty_lp``) and ``value`` the offending value, so that
    each view can phrase its own hint (a flag on the command line, a control on a page); the
    ``message`` itself names neither.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: str | None = None,
        problems: "list[InputError] | None" = None,
        code: str | None = None,
        value: object = None,
    ) -> None:
        self.message = message
        self.code = code
        self.value = value
        self.file = file
        self.line = line
        self.column = column
        self.problems = list(problems or [])
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.problems:  # each listed problem names its own line and column
            return (f"{self.file}: " if self.file else "") + self.message
        return self.where() + self.message

    def with_file(self, file: str) -> "InputError":
        """Return the same error with ``file`` filled in when it was unknown."""
        if self.file is None:
            self.file = file
        for problem in self.problems:
            problem.with_file(file)
        return self

    @classmethod
    def collect(cls, problems: "list[InputError]", what: str = "problems") -> "InputError":
        """One error reporting every problem: the message lists them all, one per line."""
        if len(problems) == 1:
            return problems[0]
        first = problems[0]
        listing = "\n".join("  - " + p.where(with_file=False) + p.message for p in problems)
        return cls(f"{len(problems)} {what}:\n{listing}", file=first.file, line=first.line, column=first.column,
                   problems=problems)

    def where(self, with_file: bool = True) -> str:
        """``"file, line 3, column 'system': "`` (empty when the problem has no place)."""
        parts = [str(self.file)] if with_file and self.file else []
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.column:
            parts.append(f"column '{brief(self.column)}'")
        return (", ".join(parts) + ": ") if parts else ""
