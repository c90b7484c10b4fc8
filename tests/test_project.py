"""The project's own promises: compose points at real things, production settings pass check --deploy,
the demo loads twice without duplicates, and the API schema and docs are served."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from apps.accounts.models import Organisation, User
from apps.catalog.models import Part
from apps.core.models import AuditEvent

ROOT = Path(__file__).resolve().parent.parent


def _compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_production_like_stack():
    services = _compose()["services"]
    assert set(services) == {"web", "worker", "beat", "postgres", "redis"}
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no health check"
    volumes = _compose()["volumes"]
    assert {"postgres-data", "generated-files"} <= set(volumes)
    assert any("postgres-data" in v for v in services["postgres"]["volumes"])
    for name in ("web", "worker", "beat"):
        assert any("generated-files" in v for v in services[name]["volumes"])
        assert services[name]["build"] == "."
        assert services[name]["environment"]["REDIS_URL"].startswith("redis://redis:")
    # Workers scale out (`--scale worker=N`): nothing may pin them to one instance.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]


def _module_file(dotted: str) -> Path:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"


def test_every_compose_command_points_at_something_in_the_repo():
    services = _compose()["services"]
    assert (ROOT / "Dockerfile").exists()
    for name in ("web", "worker", "beat"):
        command = services[name]["command"]
        words = command.replace("&&", " ").replace('"', " ").split()
        if "gunicorn" in words:
            module, _, attr = words[words.index("gunicorn") + 1].partition(":")
            assert _module_file(module).exists(), f"{name}: {module} not found"
            assert f"{attr} =" in _module_file(module).read_text()
        if "celery" in words:
            app_module = words[words.index("-A") + 1]
            assert (ROOT / app_module / "celery.py").exists(), f"{name}: celery app {app_module} not found"
            assert words[words.index("-A") + 2] in {"worker", "beat"}
        if "manage.py" in words:
            assert (ROOT / "manage.py").exists()
            sub = words[words.index("manage.py") + 1]
            from django.core.management import get_commands

            assert sub in get_commands(), f"{name}: manage.py {sub} is not a command"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "libpango" in dockerfile  # WeasyPrint's system libraries
    cmd_module = dockerfile.split("gunicorn")[-1].split('"')[2].split(":")[0]
    assert _module_file(cmd_module).exists()


def test_check_deploy_with_production_settings_is_clean():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "x" * 30 + "a-long-random-production-secret-key-value",
        "DJANGO_ALLOWED_HOSTS": "rackpass.example.com",
        "DATABASE_URL": "sqlite:////tmp/rackpass-deploy-check.sqlite3",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_to_start_without_secrets():
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SECRET_KEY", "DATABASE_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


def test_load_demo_is_idempotent(db, capsys):
    call_command("load_demo")
    first = capsys.readouterr().out
    counts = (
        Organisation.objects.count(),
        User.objects.count(),
        Part.objects.count(),
        AuditEvent.objects.count(),
    )
    call_command("load_demo")
    assert (
        Organisation.objects.count(),
        User.objects.count(),
        Part.objects.count(),
        AuditEvent.objects.count(),
    ) == counts
    assert counts[2] >= 30
    assert "rackpass-demo" in first and "coordinator" in first
    roles = set(User.objects.values_list("role", flat=True))
    assert roles == {"coordinator", "compliance_officer", "warehouse_operator", "partner", "admin"}
    assert Part.objects.filter(category="server", accelerator__isnull=False).exists()
    assert User.objects.get(username="coordinator").check_password("rackpass-demo")


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/v1/"])
def test_schema_and_docs_are_served_to_signed_in_users(coordinator, browser_as, client, path):
    assert client.get(path).status_code in (401, 403)
    response = browser_as(coordinator).get(path)
    assert response.status_code == 200


def test_docs_page_loads_swagger_from_our_own_static_files(coordinator, browser_as):
    page = browser_as(coordinator).get("/api/docs/").content.decode()
    # Nothing is loaded from another host. (Not "cdn" anywhere in the page: the page's random
    # CSRF token sometimes spells it.)
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"jsdelivr|unpkg|cdnjs|cdn\.", page, re.IGNORECASE)
    assert "/static/drf_spectacular_sidecar/" in page


def test_health_endpoint(db, client):
    assert client.get("/healthz/").json() == {
        "status": "ok", "database": "ok", "broker": "not used (tasks run in-process)", "tasks_owed": 0,
    }  # fmt: skip


def test_compose_web_health_check_passes_when_allowed_hosts_is_the_real_host_name(db, client, settings):
    """The web container's health check calls 127.0.0.1 from inside the container; production's
    ALLOWED_HOSTS holds only the public name. /healthz/ answers anyway; other paths still refuse."""
    import re
    from urllib.parse import urlparse

    test = " ".join(_compose()["services"]["web"]["healthcheck"]["test"])
    url = urlparse(re.search(r"https?://[^'\" ]+", test).group(0))
    settings.ALLOWED_HOSTS = ["rackpass.example.com"]
    settings.DEBUG = False
    host = url.netloc  # what urllib sends as the Host header
    response = client.get(url.path, HTTP_HOST=host)
    assert response.status_code == 200 and response.json()["database"] == "ok"
    assert client.get("/login/", HTTP_HOST=host).status_code == 400
    assert client.get("/healthz/", HTTP_HOST="rackpass.example.com").status_code == 200
