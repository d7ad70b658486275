"""The class-across-machines manifests have their engines' required fields,
and each rule of tests/staff/ops/manifest_fields.py notices a break."""

import copy
import os
import sys
import unittest

import yaml

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.realpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "staff", "ops"))

import manifest_fields  # noqa: E402


def shard_job():
    with open(os.path.join(REPO, manifest_fields.K8S), encoding="utf-8") as handle:
        return next(d for d in yaml.safe_load_all(handle) if d and d["spec"].get("completionMode") == "Indexed")


class Manifests(unittest.TestCase):
    def test_the_shipped_manifests_pass(self):
        self.assertEqual(manifest_fields.check_all(REPO), [])

    def test_each_rule_notices_a_break(self):
        breaks = {
            "restartPolicy": lambda j: j["spec"]["template"]["spec"].__setitem__("restartPolicy", "Always"),
            "completionMode": lambda j: j["spec"].pop("completionMode"),
            "completions": lambda j: j["spec"].pop("completions"),
            "image": lambda j: j["spec"]["template"]["spec"]["containers"][0].pop("image"),
            "SHARDS": lambda j: j["spec"].__setitem__("completions", 3),
        }
        for what, breaking in breaks.items():
            job = copy.deepcopy(shard_job())
            breaking(job)
            self.assertTrue(manifest_fields.check_job(job), f"breaking {what} went unnoticed")

    def test_gitlab_needs_parallel(self):
        with open(os.path.join(REPO, manifest_fields.GITLAB), encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
        self.assertEqual(manifest_fields.check_gitlab(document), [])
        document["grade-shard"].pop("parallel")
        self.assertTrue(manifest_fields.check_gitlab(document))


if __name__ == "__main__":
    unittest.main()
