"""Front-end components shipped with the package (plain HTML and JavaScript, served by Streamlit as they are)."""
