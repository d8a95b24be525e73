"""The app's entry script inside the package, for ``mtlb serve`` (``app.py`` is the same two lines).

It lives in a folder of its own, not beside ``leaderboard/webapp/pages/``, because Streamlit treats a
``pages/`` folder next to the entry script as pages of their own; the app registers its pages with
``st.navigation`` instead.
"""

from leaderboard.webapp.main import main

main()
