"""The embedded Celery broker: kombu's ``filesystem://`` transport, made safe for
several producers and consumers.

kombu's own channel writes a message file in place, so a consumer polling the folder
can take it while it is still being written and read half of it (``JSONDecodeError``,
kombu issue #1551; a 200 KB upload crashed the worker). It also moves a message it
takes into the system temporary folder, which need not be on the same filesystem (then
the "move" is a copy, and two consumers can both read one message). Here:

- ``_put`` writes the message to a temporary file in the queue folder under a name no
  consumer looks at, then ``os.replace``s it onto its final name: a consumer sees the
  whole message or nothing;
- ``_get`` claims a message by renaming it into ``processed_folder`` (beside the queue
  folder, the same filesystem): a rename succeeds for exactly one consumer, the others
  see the file gone and take the next one. A file that still cannot be decoded (written
  by something else) is set aside in ``processed_folder`` as ``*.unreadable`` with a log
  line instead of stopping the worker.

``config/celery.py`` makes it what ``filesystem://`` names (kombu's transport alias), so
``CELERY_BROKER_URL=filesystem://`` (the embedded default) gets it and ``redis://`` still
gets Redis, the production broker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

TEMPORARY_SUFFIX = ".part"
UNREADABLE_SUFFIX = ".unreadable"


def message_filename(queue: str) -> str:
    """kombu's name for a message file (ordered by time, then unique)."""
    return f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"


def temporary_filename() -> str:
    """A name no consumer takes for a message: ``partition('.')[2]`` is never
    ``<queue>.msg``."""
    return f".{uuid.uuid4().hex}{TEMPORARY_SUFFIX}"


class Channel(filesystem.Channel):
    # kombu names the argument ``payload`` here and ``message`` in AbstractChannel
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        folder = self.data_folder_out
        final = os.path.join(folder, message_filename(queue))
        temporary = os.path.join(folder, temporary_filename())
        try:
            with open(temporary, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(temporary)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str, timeout: Any = None) -> Any:
        wanted = f"{queue}.msg"
        folder = self.data_folder_in
        claimed_folder = self.processed_folder
        for filename in sorted(os.listdir(folder)):
            if filename.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(claimed_folder, filename)
            try:
                os.rename(os.path.join(folder, filename), claimed)
            except FileNotFoundError:
                continue  # another consumer took it
            except OSError as exc:
                raise ChannelError(f"Cannot claim {filename!r} from the queue") from exc
            try:
                with open(claimed, "rb") as handle:
                    payload = handle.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {claimed!r} from the queue") from exc
            try:
                message = loads(bytes_to_str(payload))
            except ValueError:
                logger.error("broker: set aside an unreadable message file %s", filename)
                os.replace(claimed, claimed + UNREADABLE_SUFFIX)
                continue
            if not self.store_processed:
                os.remove(claimed)
            return message
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
