"""Webhooks: the signature recipe, delivery with retries against a real local HTTP
receiver, and the run-finished fan-out (the endpoints: ``test_webhooks_api.py``).

Retries are driven in-process: ``services.delivery_attempt`` called repeatedly, and
the Celery task run eagerly with ``apply()`` (its retries then run at once, in the
same thread). Delivery through a real worker and broker is an integration test.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs import services as run_services
from webapp.runs.models import Run
from webapp.webhooks import services, signing, tasks
from webapp.webhooks.models import Delivery, DeliveryStatus, Webhook

SECRET = "s3cret-for-tests"
PLATFORM_DOC = Path(__file__).resolve().parents[2] / "docs" / "platform.md"


# --- a real HTTP receiver ------------------------------------------------------------------------


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An HTTP server on 127.0.0.1 that answers ``fail_status`` to the first ``fail_first``
    POSTs (every POST when ``fail_first`` is ``None``), then 200; it records each request."""

    url: str = ""
    fail_first: int | None = 0
    fail_status: int = 503
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, received: Received) -> int:
        with self.lock:
            self.requests.append(received)
            failing = self.fail_first is None or len(self.requests) <= self.fail_first
        return self.fail_status if failing else 200


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            code = receiver.answer(Received(dict(self.headers.items()), body))
            self.send_response(code)
            if 300 <= code < 400:
                self.send_header("Location", receiver.url)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (a free port) in a thread; yields the hook's URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()
    with serving(_handler(state)) as url:
        state.url = url
        yield state


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


@pytest.fixture(autouse=True)
def _webhook_settings(settings: Settings) -> None:
    settings.WEBHOOK_MAX_ATTEMPTS = 4
    settings.WEBHOOK_TIMEOUT_S = 5
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]  # the receivers here (test_webhooks_egress.py)


# --- records -------------------------------------------------------------------------------------


def make_clip(project: Project) -> Clip:
    return Clip.objects.create(
        project=project,
        name="walk.bvh",
        original=f"projects/{project.pk}/originals/{'a' * 64}.bvh",
        sha256="a" * 64,
        size_bytes=100,
        frames=10,
        fps=30.0,
        duration_s=1 / 3,
        joints=5,
    )


def make_delivery(project: Project, url: str) -> Delivery:
    hook = Webhook.objects.create(project=project, url=url, secret=SECRET)
    payload = {"event": "run.succeeded", "run": {"id": 7, "status": "succeeded"}, "note": "é"}
    return Delivery.objects.create(webhook=hook, event="run.succeeded", payload=payload)


def fresh(delivery: Delivery) -> Delivery:
    return Delivery.objects.get(pk=delivery.pk)


def expected_signature(secret: str, timestamp: str, body: bytes) -> str:
    """The documented recipe, written independently of webapp.webhooks.signing."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


# --- signature -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_post_is_signed_with_the_documented_recipe(
    project: Project, receiver: Receiver
) -> None:
    delivery = make_delivery(project, receiver.url)

    services.delivery_attempt(delivery_id=delivery.pk)

    (got,) = receiver.requests
    timestamp = got.headers["X-Kinetograph-Timestamp"]
    assert got.headers["X-Kinetograph-Signature"] == expected_signature(SECRET, timestamp, got.body)
    assert got.headers["X-Kinetograph-Event"] == "run.succeeded"
    assert got.headers["X-Kinetograph-Delivery"] == str(delivery.pk)
    assert got.headers["Content-Type"] == "application/json"
    assert json.loads(got.body) == delivery.payload
    assert signing.verify(SECRET, timestamp, got.body, got.headers["X-Kinetograph-Signature"])


def test_verify_accepts_a_fresh_signature_and_rejects_tampering() -> None:
    body = b'{"event":"run.succeeded"}'
    header = expected_signature(SECRET, "1000000", body)

    assert signing.verify(SECRET, "1000000", body, header, now=1000000 + 299)
    assert not signing.verify("other-secret", "1000000", body, header, now=1000000)
    assert not signing.verify(SECRET, "1000000", body + b" ", header, now=1000000)
    assert not signing.verify(SECRET, "1000001", body, header, now=1000000)


@pytest.mark.parametrize("skew_s", [301, -301, 86400])
def test_verify_rejects_stale_and_future_timestamps(skew_s: int) -> None:
    body = b"{}"
    header = expected_signature(SECRET, "1000000", body)
    assert not signing.verify(SECRET, "1000000", body, header, now=1000000 + skew_s)


@pytest.mark.parametrize(
    ("timestamp", "header"),
    [("", "sha256=00"), ("12a", "sha256=00"), ("١٢٣", "sha256=00"), ("1000000", "sha256=é")],
)
def test_verify_is_false_not_an_exception_on_malformed_input(timestamp: str, header: str) -> None:
    assert not signing.verify(SECRET, timestamp, b"{}", header, now=1000000)


def documented_receiver() -> dict[str, Any]:
    """The receiver example of docs/platform.md, executed (its ``__main__`` part skipped)."""
    blocks = re.findall(r"```python\n(.*?)```", PLATFORM_DOC.read_text(), flags=re.DOTALL)
    (code,) = [block for block in blocks if "def verify_kinetograph_signature" in block]
    namespace: dict[str, Any] = {"__name__": "documented_receiver"}
    exec(compile(code, str(PLATFORM_DOC), "exec"), namespace)
    return namespace


@pytest.mark.django_db
def test_the_documented_receiver_accepts_our_posts_and_refuses_others(project: Project) -> None:
    example = documented_receiver()
    example["SECRET"] = SECRET.encode()  # the global its handler reads

    with serving(example["Receiver"]) as url:
        ours = make_delivery(project, url)
        forged = make_delivery(project, url)
        Webhook.objects.filter(pk=forged.webhook_id).update(secret="another secret")
        services.delivery_attempt(delivery_id=ours.pk)
        services.delivery_attempt(delivery_id=forged.pk)

    assert (fresh(ours).status, fresh(ours).last_status_code) == ("delivered", 204)
    assert (fresh(forged).status, fresh(forged).last_status_code) == ("pending", 401)
    verify = example["verify_kinetograph_signature"]
    header = expected_signature(SECRET, "1000000", b"{}")
    assert verify(SECRET.encode(), "1000000", b"{}", header, now=1000000 + 300)
    assert not verify(SECRET.encode(), "1000000", b"{}", header, now=1000000 + 301)


# --- delivery attempts ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_failed_attempts_are_logged_then_the_retry_delivers(
    project: Project, receiver: Receiver
) -> None:
    receiver.fail_first = 2
    delivery = make_delivery(project, receiver.url)

    services.delivery_attempt(delivery_id=delivery.pk)
    first = fresh(delivery)
    assert (first.status, first.attempts, first.last_status_code) == ("pending", 1, 503)
    assert "503" in first.last_error
    assert first.delivered_at is None

    services.delivery_attempt(delivery_id=delivery.pk)
    services.delivery_attempt(delivery_id=delivery.pk)
    done = fresh(delivery)
    assert (done.status, done.attempts, done.last_status_code) == ("delivered", 3, 200)
    assert done.last_error == ""
    assert done.delivered_at is not None
    assert [r.headers["X-Kinetograph-Delivery"] for r in receiver.requests] == [
        str(delivery.pk)
    ] * 3
    for got in receiver.requests:  # each attempt is signed afresh
        timestamp = got.headers["X-Kinetograph-Timestamp"]
        assert got.headers["X-Kinetograph-Signature"] == expected_signature(
            SECRET, timestamp, got.body
        )

    services.delivery_attempt(delivery_id=delivery.pk)  # a duplicate message sends nothing
    assert len(receiver.requests) == 3
    assert fresh(delivery).attempts == 3


@pytest.mark.django_db
def test_the_task_retries_with_backoff_until_delivered(
    project: Project, receiver: Receiver
) -> None:
    receiver.fail_first = 2
    delivery = make_delivery(project, receiver.url)

    with mock.patch.object(tasks.deliver, "retry", wraps=tasks.deliver.retry) as retry:
        tasks.deliver.apply(args=(delivery.pk,))

    assert [c.kwargs["countdown"] for c in retry.call_args_list] == [2, 4]
    done = fresh(delivery)
    assert (done.status, done.attempts, done.last_status_code) == ("delivered", 3, 200)
    assert len(receiver.requests) == 3


@pytest.mark.django_db
def test_a_receiver_that_always_fails_ends_failed_after_max_attempts(
    project: Project, receiver: Receiver, settings: Settings
) -> None:
    receiver.fail_first = None
    receiver.fail_status = 500
    delivery = make_delivery(project, receiver.url)

    with mock.patch.object(tasks.deliver, "retry", wraps=tasks.deliver.retry) as retry:
        tasks.deliver.apply(args=(delivery.pk,))

    assert [c.kwargs["countdown"] for c in retry.call_args_list] == [2, 4, 8]
    failed = fresh(delivery)
    assert failed.status == DeliveryStatus.FAILED
    assert failed.attempts == settings.WEBHOOK_MAX_ATTEMPTS == len(receiver.requests)
    assert failed.last_status_code == 500
    assert "500" in failed.last_error
    assert failed.delivered_at is None

    tasks.deliver.apply(args=(delivery.pk,))  # a redelivered message adds no attempt
    assert fresh(delivery).attempts == settings.WEBHOOK_MAX_ATTEMPTS == len(receiver.requests)


@pytest.mark.django_db
def test_a_receiver_that_is_down_is_logged_as_an_error(
    project: Project, settings: Settings
) -> None:
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    delivery = make_delivery(project, closed_port_url())

    services.delivery_attempt(delivery_id=delivery.pk)
    first = fresh(delivery)
    assert (first.status, first.attempts, first.last_status_code) == ("pending", 1, None)
    assert first.last_error == "unreachable"  # not which error (issue 16, finding 5)

    services.delivery_attempt(delivery_id=delivery.pk)
    assert (fresh(delivery).status, fresh(delivery).attempts) == ("failed", 2)


@pytest.mark.django_db
def test_a_redirect_is_a_failed_attempt_not_followed(project: Project, receiver: Receiver) -> None:
    receiver.fail_first = 1
    receiver.fail_status = 302
    delivery = make_delivery(project, receiver.url)

    services.delivery_attempt(delivery_id=delivery.pk)

    logged = fresh(delivery)
    assert (logged.status, logged.last_status_code) == ("pending", 302)
    assert len(receiver.requests) == 1


@pytest.mark.django_db
def test_a_deleted_or_deactivated_webhook_sends_nothing(
    project: Project, receiver: Receiver
) -> None:
    inactive = make_delivery(project, receiver.url)
    Webhook.objects.filter(pk=inactive.webhook_id).update(active=False)
    deleted = make_delivery(project, receiver.url)
    deleted.webhook.delete()

    assert tasks.deliver.apply(args=(deleted.pk,)).get() is None
    assert tasks.deliver.apply(args=(inactive.pk,)).get() == "failed"
    assert fresh(inactive).attempts == 0
    assert receiver.requests == []


def test_backoff_doubles_up_to_its_cap() -> None:
    assert [tasks.backoff_s(n) for n in (1, 2, 3, 4)] == [2, 4, 8, 16]
    assert tasks.backoff_s(20) == 300


# --- a run ending notifies the project's webhooks ------------------------------------------------


def claimed_run(project: Project) -> Run:
    run = Run.objects.create(clip=make_clip(project), stages=["ingest"], parameters={})
    claimed = run_services.run_claim(run_id=run.pk, worker="test-worker")
    assert claimed is not None
    return claimed


@pytest.mark.django_db
def test_a_finished_run_creates_one_delivery_per_active_webhook(
    project: Project, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    active = [
        Webhook.objects.create(project=project, url=f"http://h{i}.test/", secret="x")
        for i in (1, 2)
    ]
    Webhook.objects.create(project=project, url="http://off.test/", secret="x", active=False)
    other = Project.objects.create(name="Other")
    Webhook.objects.create(project=other, url="http://other.test/", secret="x")
    run = claimed_run(project)

    with (
        mock.patch.object(tasks.deliver, "delay") as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert run_services.run_succeed(run=run, timings={"ingest": 0.5})

    deliveries = Delivery.objects.order_by("webhook_id")
    assert [d.webhook_id for d in deliveries] == [h.pk for h in active]
    assert sorted(c.args[0] for c in delay.call_args_list) == sorted(d.pk for d in deliveries)
    payload = deliveries[0].payload
    assert deliveries[0].event == payload["event"] == "run.succeeded"
    assert payload["run"]["id"] == run.pk
    assert payload["run"]["timings_s"] == {"ingest": 0.5}
    assert payload["project"] == {"id": project.pk}


@pytest.mark.django_db
def test_a_failed_run_is_delivered_end_to_end(
    project: Project,
    receiver: Receiver,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    Webhook.objects.create(project=project, url=receiver.url, secret=SECRET)
    run = claimed_run(project)

    def inline(delivery_id: int) -> None:
        tasks.deliver.apply(args=(delivery_id,))

    with (
        mock.patch.object(tasks.deliver, "delay", side_effect=inline),
        django_capture_on_commit_callbacks(execute=True),
    ):
        run_services.run_fail(run=run, error="Bad file.", timings={})

    (delivery,) = Delivery.objects.all()
    assert (delivery.status, delivery.attempts, delivery.event) == ("delivered", 1, "run.failed")
    (got,) = receiver.requests
    sent = json.loads(got.body)
    assert (sent["event"], sent["run"]["id"], sent["run"]["error"]) == (
        "run.failed",
        run.pk,
        "Bad file.",
    )
    timestamp = got.headers["X-Kinetograph-Timestamp"]
    assert got.headers["X-Kinetograph-Signature"] == expected_signature(SECRET, timestamp, got.body)


@pytest.mark.django_db
def test_deliveries_are_recorded_when_the_run_commits_and_sent_when_they_commit(
    project: Project, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    Webhook.objects.create(project=project, url="http://h.test/", secret="x")
    run = claimed_run(project)

    with mock.patch.object(tasks.deliver, "delay") as delay:
        with django_capture_on_commit_callbacks() as on_run_commit:
            run_services.run_succeed(run=run, timings={})
        assert not Delivery.objects.exists()
        with django_capture_on_commit_callbacks() as on_deliveries_commit:
            for callback in on_run_commit:
                callback()
        (delivery,) = Delivery.objects.all()
        delay.assert_not_called()
        for callback in on_deliveries_commit:
            callback()
        delay.assert_called_once_with(delivery.pk)


@pytest.mark.django_db
def test_a_broker_error_for_one_delivery_does_not_stop_the_others(
    project: Project, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    for i in (1, 2):
        Webhook.objects.create(project=project, url=f"http://h{i}.test/", secret="x")
    run = claimed_run(project)
    calls: list[int] = []

    def flaky_broker(delivery_id: int) -> None:
        calls.append(delivery_id)
        if len(calls) == 1:
            raise ConnectionError("broker down")

    with (
        mock.patch.object(tasks.deliver, "delay", side_effect=flaky_broker),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert run_services.run_succeed(run=run, timings={})

    assert sorted(calls) == sorted(Delivery.objects.values_list("pk", flat=True))
    assert Run.objects.get(pk=run.pk).status == "succeeded"


@pytest.mark.django_db
def test_no_webhooks_no_deliveries(
    project: Project, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    run = claimed_run(project)
    with django_capture_on_commit_callbacks(execute=True):
        run_services.run_succeed(run=run, timings={})
    assert not Delivery.objects.exists()
