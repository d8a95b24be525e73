"""The app's entry script inside the package, for ``mtlb serve`` (``app.py`` is the same file).

It lives in a folder of its own, not beside ``leaderboard/webapp/pages/``, because Streamlit treats a
``pages/`` folder next to the entry script as pages of their own; the app registers its pages with
``st.navigation`` instead.

One file, two roles: ``streamlit run`` finds the ``st.App`` below (``app``, in the module as imported) and
serves it: the pages, which it runs from this same file as the page script (``__main__``), and beside them
what :mod:`leaderboard.webapp.serving` adds (the annotation endpoint) on the same address.
"""

if __name__ == "__main__":
    from leaderboard.webapp.main import main

    main()
else:
    import streamlit as st

    from leaderboard.webapp.serving import app_options

    app = st.App(__file__, **app_options())
