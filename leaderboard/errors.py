"""One error type for every refused input, so the CLI and the app report it the same way."""

from __future__ import annotations


class InputError(ValueError):
    """A user-supplied file or frame was refused.

    ``file``, ``line`` (1-based, counting the header line when there is one) and ``column`` say
    where; any of them may be ``None`` when the problem is not tied to one place.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column:
            where.append(f"column '{self.column}'")
        return (", ".join(where) + ": " if where else "") + self.message

    def with_file(self, file: str) -> "InputError":
        """Return the same error with ``file`` filled in when it was unknown."""
        if self.file is None:
            self.file = file
        return self
