"""The web app's entry script: ``streamlit run app.py``; ``mtlb serve`` runs the packaged copy
(leaderboard/webapp/entry/app.py) after warming every page (see README). Pages live in leaderboard/webapp/pages/."""

from leaderboard.webapp.main import main

main()
