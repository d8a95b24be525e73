"""Method: the documentation of the evaluation method (docs/method), one document at a time."""

from __future__ import annotations

import streamlit as st

from leaderboard.webapp import method_docs


def render() -> None:
    st.title("Method")
    docs = method_docs.documents()
    if not docs:
        st.warning("The method documentation is missing from this installation.")
        return
    titles = {d.name: d.title for d in docs}
    # a link to a document (``method?doc=<name>``) opens it; the address then follows the choice
    asked = st.query_params.get("doc")
    if asked in titles and asked != st.session_state.get("_method_doc_shown"):
        st.session_state["method_doc"] = asked
    name = st.selectbox("Document", list(titles), format_func=titles.get, key="method_doc")
    st.query_params["doc"] = st.session_state["_method_doc_shown"] = name
    st.divider()
    st.markdown(method_docs.markdown(name))


if __name__ == "__main__":
    render()
