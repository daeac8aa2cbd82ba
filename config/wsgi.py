import os

from django.core.wsgi import get_wsgi_application

from config.chunked_bodies import ChunkedBodies
from config.statement_timeout import web_statement_timeout_apply

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Chunked request bodies are read, not taken for empty (config/chunked_bodies.py).
application = ChunkedBodies(get_wsgi_application())
# A web process: its connections start with the requests' statement timeout.
web_statement_timeout_apply()
