"""The Streamlit web app (entry: ``app.py`` at the repository root; pages in :mod:`.pages`)."""
