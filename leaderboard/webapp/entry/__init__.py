"""The folder of the app's packaged entry script (``app.py``, run by ``mtlb serve``), apart from ``pages/``."""
