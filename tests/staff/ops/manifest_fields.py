"""The fields the engines require of the class-across-machines manifests.

No Kubernetes schema validator is packaged by Debian or reachable offline
here, so the Job's rules are checked from a list taken from the batch/v1
API reference (Job, JobSpec, PodTemplateSpec, Container): the fields a Job
must have, and the rules between them that the API server enforces
(backoffLimitPerIndex only with completionMode Indexed, an Indexed Job
needs completions, restartPolicy Never or OnFailure, and Never when
backoffLimitPerIndex is set). The GitLab job is checked the same way
(parallel between 2 and 200, an image, a script). check_all returns one
sentence per problem; tests/staff/ops/check-image reports them, and
tests/staff/grader/test_manifest_fields.py shows each rule notices a break.
"""

import os

import yaml

K8S = "grader/image/k8s-grade-class.yaml"
GITLAB = "grader/ci/class-parallel.gitlab-ci.yml"


def _get(document, path):
    node = document
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check_job(job):
    """Problems of one batch/v1 Job document."""
    problems = []
    name = _get(job, "metadata.name") or "(unnamed)"
    for path in ("apiVersion", "kind", "metadata.name", "spec.template.spec.containers"):
        if _get(job, path) in (None, "", []):
            problems.append(f"Job {name}: {path} is required")
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        problems.append(f"Job {name}: apiVersion/kind must be batch/v1 Job")
    spec = job.get("spec") or {}
    pod = _get(job, "spec.template.spec") or {}
    policy = pod.get("restartPolicy")
    if policy not in ("Never", "OnFailure"):
        problems.append(f"Job {name}: spec.template.spec.restartPolicy must be Never or OnFailure")
    for container in pod.get("containers") or []:
        for key in ("name", "image"):
            if not container.get(key):
                problems.append(f"Job {name}: every container needs a {key}")
    if "backoffLimitPerIndex" in spec:
        if spec.get("completionMode") != "Indexed":
            problems.append(f"Job {name}: backoffLimitPerIndex needs completionMode: Indexed")
        if policy != "Never":
            problems.append(f"Job {name}: backoffLimitPerIndex needs restartPolicy: Never")
    if spec.get("completionMode") == "Indexed":
        completions = spec.get("completions")
        if not isinstance(completions, int) or completions < 1:
            problems.append(f"Job {name}: an Indexed Job needs completions >= 1")
        for container in pod.get("containers") or []:
            shards = {e.get("name"): e.get("value") for e in container.get("env") or []}.get("SHARDS")
            if shards is not None and str(shards) != str(completions):
                problems.append(f"Job {name}: SHARDS ({shards}) differs from completions ({completions})")
    return problems


def check_gitlab(document):
    problems = []
    jobs = {k: v for k, v in document.items() if isinstance(v, dict) and "script" in v}
    parallel = [k for k, v in jobs.items() if "parallel" in v]
    if not parallel:
        problems.append("GitLab: no job with parallel:")
    for key in parallel:
        value = jobs[key]["parallel"]
        if not isinstance(value, int) or not 2 <= value <= 200:
            problems.append(f"GitLab: {key}: parallel must be a number from 2 to 200")
    for key, job in jobs.items():
        if not (job.get("image") or document.get("image")):
            problems.append(f"GitLab: {key}: no image")
        if not isinstance(job.get("script"), list) or not job["script"]:
            problems.append(f"GitLab: {key}: script must be a list of commands")
    return problems


def check_all(repo):
    problems = []
    with open(os.path.join(repo, K8S), encoding="utf-8") as handle:
        documents = [d for d in yaml.safe_load_all(handle) if d]
    if not any(_get(d, "spec.completionMode") == "Indexed" for d in documents):
        problems.append("Kubernetes: no Indexed Job")
    for document in documents:
        problems += check_job(document)
    with open(os.path.join(repo, GITLAB), encoding="utf-8") as handle:
        problems += check_gitlab(yaml.safe_load(handle))
    return problems
