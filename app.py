"""The web app: ``streamlit run app.py`` (see README). Pages live in leaderboard/webapp/pages/."""

from leaderboard.webapp.main import main

main()
