"""The web app's entry script: ``streamlit run app.py``; ``mtlb serve`` runs the packaged copy
(leaderboard/webapp/entry/app.py) after warming every page (see README). Pages live in leaderboard/webapp/pages/.

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
