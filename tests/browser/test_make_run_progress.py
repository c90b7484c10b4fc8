"""Issue 12's "done means", in real Chromium under `make run`'s own set-up: generating documents
runs in the background, the progress bar reaches 100 % and the page's document list refreshes by
itself.

Nothing is faked: a fresh SQLite file gets what `make run` runs (`manage.py migrate`, `load_demo`,
then `run_local`: runserver and a Celery worker on the file queue, no Redis), whatever database and
broker the suite itself runs on. The demo coordinator signs in and presses "Generate all required"
on an approved demo shipment. The worker is held (SIGSTOP) while the click is made, so that the
page answering with the task still waiting is a fact, not a race; the box's first poll and its
first reload of the list are refused (as while runserver restarts after an edit); then the worker
is let go and the page is watched, never reloaded, until the task ends.
(tests/browser/test_background_progress.py checks the progress box's steps one by one with the
worker played by the test.)"""

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from apps.core.management.commands.load_demo import DEFAULT_PASSWORD
from tests.conftest import chromium_path, require
from tests.core.run_local_process import RunLocal

from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS

ROOT = Path(__file__).resolve().parents[2]

# Records what the progress box shows each time it changes (in the page: no polling by the test can
# miss a state the page showed for 700 ms).
WATCH_THE_BOX = """
window.stillTheSamePage = true;
window.boxSeen = [];
const box = document.getElementById("task");
const note = () => {
  const bar = box.querySelector("progress");
  const said = {
    text: box.innerText.replace(/\\s+/g, " ").trim(),
    value: bar && bar.hasAttribute("value") ? bar.getAttribute("value") : null,
    label: bar ? bar.getAttribute("aria-label") : null,
  };
  const last = window.boxSeen[window.boxSeen.length - 1];
  if (!last || last.text !== said.text || last.value !== said.value) window.boxSeen.push(said);
};
note();
new MutationObserver(note).observe(
  box, {childList: true, subtree: true, attributes: true, characterData: true}
);
"""
# What a person may read in the box, and nothing raw: no state codes, task names, ids or Python.
HUMAN_TEXT = re.compile(
    r"Document generation of SHP-\d{4}-\d{6}: (?:"
    r"Queued, waiting for the background worker\."  # the worker is held
    r"|Rendering the [a-z][a-z’' -]* \(\d+ of \d+\)…(?: \d{1,3} %)?"  # running
    r"|finished successfully: \d+ documents? generated(?:; not generated: [a-z][a-z’', -]*)? 100 %"  # done
    r")"
)
LABEL = re.compile(r"Document generation: (?:waiting|started|\d{1,3} %)")
RAW = re.compile(
    r"\b(?:QUEUED|SENT|OWED|STARTED|PROGRESS|SUCCESS|FAILURE|None)\b|documents\.generate|[{}]|\w{8}-\w{4}-"
)


def _manage(env: dict, *args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.browser
def test_generate_all_under_make_run_reaches_100_percent_and_the_list_refreshes_itself(tmp_path):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    started = time.monotonic()
    # `make run`'s settings, on files of this test's own: not the suite's PostgreSQL or Redis.
    dropped = {"DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER"}
    env = {k: v for k, v in os.environ.items() if k not in dropped} | {
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "RACKPASS_TASK_DIR": str(tmp_path / "tasks"),
        "RACKPASS_MEDIA_ROOT": str(tmp_path / "media"),
        "RACKPASS_DEMO_PASSWORD": DEFAULT_PASSWORD,
    }
    _manage(env, "migrate", "--noinput")
    # The demo loads while run_local starts (neither needs the other; the file is in WAL mode).
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "load_demo"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    run = RunLocal(env, "--noreload")  # an edit elsewhere in the work tree must not restart it
    worker = None
    try:
        demo_output, _ = demo.communicate(timeout=180)
        assert demo.returncode == 0, demo_output[-5000:]
        run.wait_until_started()
        # The demo queues compliance checks: once the worker has run them, the shipments are as
        # a coordinator opening the app finds them.
        db = sqlite3.connect(tmp_path / "db.sqlite3")
        try:
            # A deadline on the wait, not a measurement: past it the worker has not run them at all.
            deadline = started + 150
            while db.execute(
                "SELECT COUNT(*) FROM core_taskrecord WHERE state IN ('owed', 'sent', 'started')"
            ).fetchone()[0]:
                if time.monotonic() > deadline:
                    pytest.fail("the demo's tasks were not run:\n" + run.output)
                time.sleep(0.2)
            # An approved shipment with no document yet: what a coordinator generates next.
            (reference,) = db.execute(
                "SELECT reference FROM shipments_shipment s WHERE status = 'approved' AND NOT EXISTS "
                "(SELECT 1 FROM documents_document d WHERE d.shipment_id = s.id) ORDER BY reference"
            ).fetchone()
        finally:
            db.close()
        worker = run.worker_pid()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
            page.set_default_timeout(15_000)
            errors: list[str] = []
            refused: list[str] = []  # the requests made to fail, below
            page.on("pageerror", lambda error: errors.append(str(error)))

            def console_error(message) -> None:
                # The requests refused below are reported on the console (by Chromium and htmx).
                expected = refused and re.search(
                    r"ERR_CONNECTION_REFUSED|^htmx:(?:sendError|afterRequest)\b", message.text
                )
                if message.type == "error" and not expected:
                    errors.append(message.text)

            page.on("console", console_error)

            page.goto(f"{run.url}/login/")
            page.get_by_label("Username").fill("coordinator")
            page.get_by_label("Password").fill(DEFAULT_PASSWORD)
            page.get_by_role("button", name="Log in").click()
            expect(page.get_by_role("button", name="Log in")).to_have_count(0)
            page.goto(f"{run.url}/shipments/{reference}/documents/")
            invoice = page.locator("#doc-commercial_invoice")
            expect(invoice).to_contain_text("not issued")
            expect(invoice.get_by_role("button", name="Generate it")).to_be_visible()  # nothing missing
            expect(invoice.get_by_role("link", name="Download")).to_have_count(0)

            # The worker is held: whatever the page shows next, it shows without the worker's help.
            os.kill(worker, signal.SIGSTOP)
            clicked = time.monotonic()
            page.get_by_role("button", name="Generate all required").click()
            # It answers at all only without the worker (stopped above); Playwright's own timeout
            # bounds the wait, so no duration is asserted here.
            page.wait_for_url(re.compile(r"\?task="))
            box = page.locator("#task")
            expect(box).to_contain_text("waiting for the background worker")
            expect(box.locator("progress")).to_have_count(1)
            expect(invoice).to_contain_text("not issued")
            expect(invoice.get_by_role("link", name="Download")).to_have_count(0)  # nothing rendered
            page.evaluate(WATCH_THE_BOX)  # and from now on the page is not reloaded

            # The box's first poll and its first reload of the list fail, as while runserver
            # restarts after an edit (`make run` reloads): each is made again, the box does not
            # stop where it was nor the list stay as it was.
            def refuse_the_first(route):
                kind = "poll" if "/compliance/tasks/" in route.request.url else "list"
                if kind in refused:
                    route.continue_()
                else:
                    refused.append(kind)
                    route.abort("connectionrefused")

            page.route(re.compile(r"/compliance/tasks/|/documents/\?task="), refuse_the_first)
            while not refused and time.monotonic() - clicked < 20:
                page.wait_for_timeout(100)
            assert refused == ["poll"], refused

            os.kill(worker, signal.SIGCONT)
            expect(box).to_contain_text("finished successfully", timeout=60_000)
            expect(box.locator("progress[value='100']")).to_have_count(1)
            expect(box.locator(".progress-figure")).to_have_text("100 %")
            generated = int(re.search(r"(\d+) documents? generated", box.inner_text()).group(1))
            # The list below was loaded again by itself: each generated document, with its PDF.
            expect(page.locator("#documents").get_by_role("link", name="Download")).to_have_count(generated)
            expect(invoice).to_contain_text(re.compile(r"\bCI-\d{4}-\d{6}"))
            expect(invoice.get_by_role("link", name="Download")).to_have_count(1)
            expect(invoice.get_by_role("button", name="Generate a new version")).to_be_visible()
            expect(page.locator("#doc-packing_list").get_by_role("link", name="Download")).to_have_count(1)
            assert page.evaluate("window.stillTheSamePage") is True
            assert refused == ["poll", "list"], refused
            download = invoice.get_by_role("link", name="Download").get_attribute("href")
            pdf = page.request.get(run.url + download)
            assert pdf.ok and pdf.headers["content-type"] == "application/pdf" and pdf.body()[:5] == b"%PDF-"
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "documents-generated-make-run.png"), full_page=True)

            seen = page.evaluate("window.boxSeen")
            browser.close()
    finally:
        if demo.poll() is None:
            demo.kill()
        if worker is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGCONT)
        code = run.stop()
        print(run.output[-8000:])  # shown when the test fails

    # Every state the box showed is said in words, and the bar only moved forward.
    assert seen and seen[-1]["value"] == "100", seen
    for said in seen:
        assert HUMAN_TEXT.fullmatch(said["text"]) and not RAW.search(said["text"]), said
        assert LABEL.fullmatch(said["label"] or ""), said
    values = [int(said["value"]) for said in seen if said["value"] is not None]
    assert values == sorted(values), seen
    assert errors == [], errors
    out = run.output
    assert code == 0 and "Traceback" not in out and '" 500 ' not in out, out[-5000:]
    assert "documents.generate" in out and "succeeded in" in out, out[-5000:]  # the worker ran it
