import os

from django.core.asgi import get_asgi_application

from config.statement_timeout import web_statement_timeout_apply

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
# A web process: its connections start with the requests' statement timeout.
web_statement_timeout_apply()
