# The leaderboard app: slim Python, non-root user, demo data loaded on first start.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    MTLB_DATA_DIR=/home/mtlb/data
RUN useradd --create-home --uid 10001 mtlb
WORKDIR /app
COPY pyproject.toml README.md ./
COPY leaderboard ./leaderboard
COPY metrics ./metrics
COPY data ./data
COPY app.py ./
COPY .streamlit ./.streamlit
RUN pip install --upgrade pip && pip install .
USER mtlb
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health').status == 200 else 1)"
# DATABASE_URL (e.g. postgresql+psycopg://user:pass@db/mtlb) selects a shared store; default SQLite.
CMD ["sh", "-c", "mtlb demo --if-empty && exec streamlit run app.py --server.port 8501 --server.address 0.0.0.0 --server.headless true --browser.gatherUsageStats false"]
