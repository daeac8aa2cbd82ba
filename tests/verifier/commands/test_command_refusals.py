"""Commands refuse bad arguments with a CommandError (one line), not a traceback:
``audit_pack --out`` into a folder that is not there, ``create_api_key --name ""``."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from verifier.models import ApiKey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("out", ["missing/dir/pack.zip", "."])
def test_audit_pack_into_a_folder_that_is_not_there_is_a_command_error(workspace, tmp_path, out):
    target = tmp_path / out
    with pytest.raises(CommandError, match="--out"):
        call_command("audit_pack", "--workspace", workspace.slug, "--out", str(target))
    assert not list(tmp_path.rglob("*.part"))


def test_audit_pack_into_a_folder_it_cannot_write_is_a_command_error(workspace, tmp_path):
    target = tmp_path / "pack.zip"
    target.with_name("pack.zip.part").mkdir()  # the partial file's name is taken
    with pytest.raises(CommandError, match="cannot write there"):
        call_command("audit_pack", "--workspace", workspace.slug, "--out", str(target))


@pytest.mark.parametrize("name", ["", "   "])
def test_create_api_key_refuses_an_empty_name(workspace, name):
    with pytest.raises(CommandError, match="--name must not be empty"):
        call_command(
            "create_api_key", "--workspace", workspace.slug, "--name", name, stdout=StringIO()
        )
    assert not ApiKey.objects.filter(workspace=workspace).exists()
