"""The web app's entry script: ``streamlit run app.py``; ``mtlb serve`` runs the packaged copy
(leaderboard/webapp/entry/app.py) after warming every page (see README). Pages live in leaderboard/webapp/pages/.

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
