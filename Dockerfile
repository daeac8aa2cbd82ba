FROM python:3.11-slim
WORKDIR /app
ENV PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
COPY pyproject.toml ./
COPY config ./config
COPY verifier ./verifier
COPY review ./review
COPY audit ./audit
RUN pip install --no-cache-dir torch==2.13.0 \
    && pip install --no-cache-dir .
COPY . .
EXPOSE 8000
