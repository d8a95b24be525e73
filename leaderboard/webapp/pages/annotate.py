"""Annotation: the annotator's task (opened by an invitation or crowd link; shown without the app's menu)."""

from leaderboard.webapp import annotate_view

if __name__ == "__main__":
    annotate_view.render()
