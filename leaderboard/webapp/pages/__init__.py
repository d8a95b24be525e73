"""One module per page; each is run as a Streamlit page script and exposes ``render()``."""
