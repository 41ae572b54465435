"""The OpenAI-compatible fake, proved with a client nobody here wrote: the official `openai`
Python package, pointed at the fake with `base_url`, creates a video, follows it, downloads
its content, and meets the fake's errors as the SDK's own exceptions.

Run by `npm test` with the project's venv (scripts/setup-py.sh); it starts the fake itself.
"""

import json
import os
import subprocess
import sys
import unittest
import urllib.request

import openai
from openai import OpenAI

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKES = os.environ.get("PROVIDER_FAKES_BIN", os.path.join(ROOT, "target", "release", "provider-fakes"))
CONTENT_BYTES = 300_000


class OpenAiSdkAgainstTheFake(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = subprocess.Popen(
            [FAKES, "--port", "0", "--job-ms", "400", "--content-bytes", str(CONTENT_BYTES)],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = cls.fake.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the fake did not start: {line!r}")
        cls.base = line.split()[-1]
        cls.client = OpenAI(api_key="fake-key", base_url=f"{cls.base}/openai/v1", max_retries=2)

    @classmethod
    def tearDownClass(cls):
        cls.fake.terminate()
        cls.fake.wait()
        cls.fake.stdout.close()

    def fail_next(self, count, status, retry_after=None):
        body = json.dumps(
            {"provider": "openai", "count": count, "status": status, "retry_after": retry_after}
        ).encode()
        request = urllib.request.Request(
            f"{self.base}/_fake/fail", data=body, headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(request).close()

    def test_create_retrieve_and_download(self):
        video = self.client.videos.create(
            model="sora-2", prompt="A lighthouse at dusk, waves rolling in", seconds="4", size="1280x720"
        )
        self.assertTrue(video.id.startswith("video_") and len(video.id) == 6 + 48, video.id)
        self.assertEqual(video.object, "video")
        self.assertIn(video.status, ("queued", "in_progress"))
        self.assertEqual((video.seconds, video.size), ("4", "1280x720"))
        before = self.client.videos.retrieve(video.id)
        self.assertEqual(before.id, video.id)
        with self.assertRaises(openai.BadRequestError):
            self.client.videos.download_content(video.id)
        # The SDK's own poller, paced by the fake's openai-poll-after-ms.
        done = self.client.videos.poll(video.id)
        self.assertEqual((done.status, done.progress), ("completed", 100))
        self.assertIsNotNone(done.expires_at)
        data = self.client.videos.download_content(video.id).read()
        self.assertEqual(len(data), CONTENT_BYTES)
        self.assertEqual(data[:300], bytes(i % 251 for i in range(300)))

    def test_moderated_jobs_fail_with_the_reason(self):
        video = self.client.videos.create(prompt="something moderated")
        self.assertEqual((video.seconds, video.size, video.model), ("4", "720x1280", "sora-2"))
        failed = self.client.videos.poll(video.id)
        self.assertEqual(failed.status, "failed")
        self.assertEqual(failed.error.code, "moderation_blocked")

    def test_the_sdk_retries_a_429_that_carries_retry_after(self):
        video = self.client.videos.create(prompt="a calm sea")
        self.fail_next(1, 429, "0")
        self.assertEqual(self.client.videos.retrieve(video.id).id, video.id)
        # One retry, two answers of 503: the SDK gives up with its own exception.
        self.fail_next(2, 503)
        with self.assertRaises(openai.InternalServerError):
            self.client.with_options(max_retries=1).videos.retrieve(video.id)
        self.assertEqual(self.client.videos.retrieve(video.id).id, video.id)

    def test_errors_become_the_sdks_exceptions(self):
        with self.assertRaises(openai.BadRequestError) as invalid:
            self.client.videos.create(prompt="a calm sea", seconds="7")
        self.assertEqual(invalid.exception.body["param"], "seconds")
        with self.assertRaises(openai.NotFoundError):
            self.client.videos.retrieve("video_" + "0" * 48)
        stranger = OpenAI(api_key="wrong", base_url=f"{self.base}/openai/v1")
        with self.assertRaises(openai.AuthenticationError):
            stranger.videos.create(prompt="a calm sea")


if __name__ == "__main__":
    sys.exit(unittest.main())
