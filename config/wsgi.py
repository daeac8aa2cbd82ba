import os

from django.core.wsgi import get_wsgi_application

from config.chunked_bodies import ChunkedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Chunked request bodies are read, not taken for empty (config/chunked_bodies.py).
application = ChunkedBodies(get_wsgi_application())
