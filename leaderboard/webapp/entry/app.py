"""The app's entry script inside the package, for ``mtlb serve`` (``app.py`` is the same file).

It lives in a folder of its own, not beside ``leaderboard/webapp/pages/``, because Streamlit treats a
``pages/`` folder next to the entry script as pages of their own; the app registers its pages with
``st.navigation`` instead.

One file, two roles: ``streamlit run`` finds the ``st.App`` below (``app``, in the module as imported) and
serves it: the pages, which it runs from this same file as the page script (``__main__``), and beside them
the annotation endpoint (:mod:`leaderboard.webapp.annotation_api`) on the same address.
"""

if __name__ == "__main__":
    from leaderboard.webapp.main import main

    main()
else:
    import streamlit as st
    from starlette.middleware import Middleware
    from streamlit import config

    from leaderboard.webapp.annotation_api import routes
    from leaderboard.webapp.connections import SendAtOnce

    app = st.App(__file__, routes=routes(config.get_option("server.baseUrlPath") or ""),
                 middleware=[Middleware(SendAtOnce)])
