"""Checks deploy/ with what this machine has (issue 16 part 3); no container or cluster runs here.

- Kubernetes manifests: YAML parse, a JSON Schema per kind for the fields they use (written for
  this project, not Kubernetes' full OpenAPI), and cross-references (selectors match the pod
  labels, probes hit /ready and /health on the container's port, the grace period outlasts the
  drain, the HPA and InferencePool point at the Deployment's pods and port).
- Dockerfile: each instruction known, Debian 12 base, non-root USER, COPY sources present,
  exec-form ENTRYPOINT; hadolint too when installed.
- entrypoint.sh: `sh -n`, then run with a stand-in `ogai` that prints its arguments.
- haproxy -c and nginx -t on the shipped configurations (skipped, and said, when not installed).
- docs/deploy.md: every vllm:* name it mentions is one src/serve/ops/metrics.cc exports.
Run with Debian's /usr/bin/python3 (python3-yaml, python3-jsonschema).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import jsonschema
import yaml

SOURCE = os.environ.get("OGAI_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
DEPLOY = os.path.join(SOURCE, "deploy")


def obj(required, props, extra=True):
    return {"type": "object", "required": required, "properties": props, "additionalProperties": extra}


STR = {"type": "string", "minLength": 1}
INT = {"type": "integer"}
LABELS = {"type": "object", "minProperties": 1, "additionalProperties": STR}
META = obj(["name"], {"name": STR, "labels": LABELS, "annotations": {"type": "object", "additionalProperties": STR}})
PROBE = obj(["httpGet"], {"httpGet": obj(["path", "port"], {"path": {"enum": ["/ready", "/health"]},
                                                           "port": {"type": ["string", "integer"]}}, False),
                          "periodSeconds": INT, "timeoutSeconds": INT, "failureThreshold": INT,
                          "successThreshold": INT}, False)
CONTAINER = obj(["name", "image", "ports", "readinessProbe", "livenessProbe", "resources"], {
    "name": STR, "image": STR, "args": {"type": "array", "items": {"type": "string"}},
    "env": {"type": "array", "items": obj(["name"], {"name": STR, "value": {"type": "string"}, "valueFrom": {"type": "object"}}, False)},
    "ports": {"type": "array", "minItems": 1, "items": obj(["containerPort"], {"name": STR, "containerPort": INT, "protocol": {"enum": ["TCP"]}}, False)},
    "readinessProbe": PROBE, "livenessProbe": PROBE, "startupProbe": PROBE,
    "resources": obj(["requests", "limits"], {"requests": obj(["nvidia.com/gpu"], {}), "limits": obj(["nvidia.com/gpu"], {})}, False),
    "lifecycle": obj(["preStop"], {"preStop": obj(["exec"], {"exec": obj(["command"], {"command": {"type": "array", "items": {"type": "string"}}})})}),
    "securityContext": obj(["allowPrivilegeEscalation"], {"allowPrivilegeEscalation": {"const": False}}),
    "volumeMounts": {"type": "array", "items": obj(["name", "mountPath"], {"name": STR, "mountPath": STR, "readOnly": {"type": "boolean"}}, False)},
    "imagePullPolicy": {"enum": ["Always", "IfNotPresent", "Never"]},
}, False)
SCHEMAS = {
    ("apps/v1", "Deployment"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["replicas", "selector", "template"], {
        "replicas": {"type": "integer", "minimum": 1},
        "selector": obj(["matchLabels"], {"matchLabels": LABELS}, False),
        "strategy": {"type": "object"},
        "template": obj(["metadata", "spec"], {"metadata": META | {"required": ["labels"]}, "spec": obj(["containers"], {
            "terminationGracePeriodSeconds": INT,
            "securityContext": obj(["runAsNonRoot"], {"runAsNonRoot": {"const": True}, "runAsUser": {"type": "integer", "minimum": 1}}),
            "containers": {"type": "array", "minItems": 1, "items": CONTAINER},
            "volumes": {"type": "array", "items": obj(["name"], {"name": STR})},
        }, False)}, False)}, False)}),
    ("v1", "Service"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["selector", "ports"], {
        "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer"]}, "selector": LABELS,
        "ports": {"type": "array", "minItems": 1, "items": obj(["port", "targetPort"], {"name": STR, "port": INT, "targetPort": {"type": ["string", "integer"]}, "protocol": {"enum": ["TCP"]}}, False)}}, False)}),
    ("monitoring.coreos.com/v1", "PodMonitor"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["selector", "podMetricsEndpoints"], {
        "selector": obj(["matchLabels"], {"matchLabels": LABELS}, False),
        "podMetricsEndpoints": {"type": "array", "minItems": 1, "items": obj(["port", "path"], {"port": STR, "path": {"const": "/metrics"}, "interval": {"type": "string", "pattern": "^[0-9]+[smh]$"}}, False)}}, False)}),
    ("autoscaling/v2", "HorizontalPodAutoscaler"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["scaleTargetRef", "minReplicas", "maxReplicas", "metrics"], {
        "scaleTargetRef": obj(["apiVersion", "kind", "name"], {"apiVersion": {"const": "apps/v1"}, "kind": {"const": "Deployment"}, "name": STR}, False),
        "minReplicas": {"type": "integer", "minimum": 1}, "maxReplicas": INT,
        "metrics": {"type": "array", "minItems": 1, "items": obj(["type", "pods"], {"type": {"const": "Pods"}, "pods": obj(["metric", "target"], {
            "metric": obj(["name"], {"name": {"type": "string", "pattern": "^[a-z_][a-z0-9_]*$"}}, False),
            "target": obj(["type", "averageValue"], {"type": {"const": "AverageValue"}, "averageValue": {"type": "string"}}, False)}, False)}, False)},
        "behavior": {"type": "object"}}, False)}),
    ("v1", "ConfigMap"): obj(["metadata", "data"], {"metadata": META, "data": {"type": "object", "additionalProperties": {"type": "string"}}}),
    ("v1", "Secret"): obj(["metadata", "stringData"], {"metadata": META, "type": {"const": "Opaque"}, "stringData": LABELS}),
    ("inference.networking.k8s.io/v1", "InferencePool"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["selector", "targetPorts", "endpointPickerRef"], {
        "selector": obj(["matchLabels"], {"matchLabels": LABELS}, False),
        "targetPorts": {"type": "array", "minItems": 1, "maxItems": 8, "items": obj(["number"], {"number": {"type": "integer", "minimum": 1, "maximum": 65535}}, False)},
        "endpointPickerRef": obj(["name", "port"], {"name": STR, "port": obj(["number"], {"number": INT}, False), "failureMode": {"enum": ["FailOpen", "FailClose"]}}, False)}, False)}),
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): obj(["metadata", "spec"], {"metadata": META, "spec": obj(["parentRefs", "rules"], {
        "parentRefs": {"type": "array", "minItems": 1, "items": obj(["name"], {"group": STR, "kind": STR, "name": STR}, False)},
        "rules": {"type": "array", "minItems": 1, "items": obj(["backendRefs"], {
            "matches": {"type": "array"}, "timeouts": {"type": "object"},
            "backendRefs": {"type": "array", "minItems": 1, "items": obj(["group", "kind", "name"], {"group": {"const": "inference.networking.k8s.io"}, "kind": {"const": "InferencePool"}, "name": STR}, False)}}, False)}}, False)}),
}


def manifests():
    out = {}
    for name in sorted(os.listdir(os.path.join(DEPLOY, "k8s"))):
        with open(os.path.join(DEPLOY, "k8s", name)) as f:
            for doc in yaml.safe_load_all(f):
                out[(doc["apiVersion"], doc["kind"])] = (name, doc)
    return out


class Manifests(unittest.TestCase):
    def setUp(self):
        self.docs = manifests()

    def test_each_kind_matches_its_schema(self):
        self.assertEqual(set(self.docs), set(SCHEMAS), "a manifest kind without a schema, or a schema without a manifest")
        for key, (name, doc) in self.docs.items():
            with self.subTest(file=name, kind=key[1]):
                jsonschema.validate(doc, SCHEMAS[key])

    def test_a_schema_rejects_what_it_should(self):  # the checks above can fail
        _, deployment = self.docs[("apps/v1", "Deployment")]
        bad = yaml.safe_load(yaml.safe_dump(deployment))
        bad["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["path"] = "/"
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMAS[("apps/v1", "Deployment")])

    def test_cross_references(self):
        _, dep = self.docs[("apps/v1", "Deployment")]
        pod = dep["spec"]["template"]
        labels = pod["metadata"]["labels"]
        c = pod["spec"]["containers"][0]
        port = c["ports"][0]
        self.assertLessEqual(dep["spec"]["selector"]["matchLabels"].items(), labels.items())
        self.assertEqual(c["readinessProbe"]["httpGet"]["path"], "/ready")
        self.assertEqual(c["livenessProbe"]["httpGet"]["path"], "/health")
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            self.assertIn(c[probe]["httpGet"]["port"], (port["name"], port["containerPort"]))
        drain = float(c["args"][c["args"].index("--drain-timeout") + 1])
        pre_stop = float(c["lifecycle"]["preStop"]["exec"]["command"][1])
        self.assertGreater(pod["spec"]["terminationGracePeriodSeconds"], drain + pre_stop)
        env = {e["name"]: e for e in c["env"]}
        self.assertEqual(env["OGAI_PORT"]["value"], str(port["containerPort"]))
        self.assertEqual(pod["metadata"]["annotations"]["prometheus.io/port"], str(port["containerPort"]))
        mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
        self.assertTrue(mounts[env["OGAI_MODEL"]["value"]]["readOnly"])
        self.assertTrue(env["OGAI_API_KEY_FILE"]["value"].startswith(next(p for p in mounts if "secrets" in p)))
        volumes = {v["name"] for v in pod["spec"]["volumes"]}
        self.assertEqual({m["name"] for m in c["volumeMounts"]}, volumes)
        _, svc = self.docs[("v1", "Service")]
        self.assertLessEqual(svc["spec"]["selector"].items(), labels.items())
        self.assertIn(svc["spec"]["ports"][0]["targetPort"], (port["name"], port["containerPort"]))
        _, pm = self.docs[("monitoring.coreos.com/v1", "PodMonitor")]
        self.assertLessEqual(pm["spec"]["selector"]["matchLabels"].items(), labels.items())
        self.assertEqual(pm["spec"]["podMetricsEndpoints"][0]["port"], port["name"])
        _, hpa = self.docs[("autoscaling/v2", "HorizontalPodAutoscaler")]
        self.assertEqual(hpa["spec"]["scaleTargetRef"]["name"], dep["metadata"]["name"])
        _, rules = self.docs[("v1", "ConfigMap")]
        adapter = yaml.safe_load(rules["data"]["config.yaml"])["rules"][0]
        self.assertEqual(adapter["name"]["as"], hpa["spec"]["metrics"][0]["pods"]["metric"]["name"])
        self.assertIn("vllm:num_requests_waiting", adapter["seriesQuery"])
        _, pool = self.docs[("inference.networking.k8s.io/v1", "InferencePool")]
        self.assertLessEqual(pool["spec"]["selector"]["matchLabels"].items(), labels.items())
        self.assertEqual(pool["spec"]["targetPorts"][0]["number"], port["containerPort"])
        _, route = self.docs[("gateway.networking.k8s.io/v1", "HTTPRoute")]
        self.assertEqual(route["spec"]["rules"][0]["backendRefs"][0]["name"], pool["metadata"]["name"])


KNOWN = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER", "WORKDIR",
         "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def dockerfile_instructions(path):
    lines, current = [], ""
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not current and (not line.strip() or line.lstrip().startswith("#")):
                continue
            current += line.rstrip("\\").strip() + " "
            if not line.endswith("\\"):
                lines.append(current.strip())
                current = ""
    return [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l else "") for l in lines]


class Dockerfile(unittest.TestCase):
    path = os.path.join(DEPLOY, "docker/Dockerfile")

    def test_instructions(self):
        ins = dockerfile_instructions(self.path)
        self.assertTrue(all(op in KNOWN for op, _ in ins), [op for op, _ in ins if op not in KNOWN])
        froms = [arg for op, arg in ins if op == "FROM"]
        self.assertTrue(froms[0].startswith("debian:12"), froms)
        self.assertTrue(froms[-1].startswith("debian:12"), froms)
        final = ins[max(i for i, (op, _) in enumerate(ins) if op == "FROM"):]
        users = [arg for op, arg in final if op == "USER"]
        self.assertTrue(users and not users[-1].startswith(("0", "root")), users)
        last_user = max(i for i, (op, _) in enumerate(final) if op == "USER")
        self.assertFalse(any(op == "RUN" for op, _ in final[last_user:]), "RUN after USER in the final stage")
        entry = [arg for op, arg in final if op == "ENTRYPOINT"]
        self.assertTrue(entry and entry[0].startswith("["), "ENTRYPOINT in exec form")
        for op, arg in ins:
            if op == "COPY" and not arg.startswith("--from"):
                src = arg.split()[0]
                self.assertTrue(src == "." or os.path.exists(os.path.join(SOURCE, src)), src)
        self.assertTrue(any("scripts/setup.sh" in arg for op, arg in ins if op == "RUN"), "built with the README's set-up")

    def test_hadolint_when_installed(self):
        if not shutil.which("hadolint"):
            self.skipTest("hadolint is not installed (not packaged for Debian 12)")
        subprocess.run(["hadolint", self.path], check=True)


class Entrypoint(unittest.TestCase):
    path = os.path.join(DEPLOY, "docker/entrypoint.sh")

    def run_entrypoint(self, env, *args):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "ogai")
            with open(fake, "w") as f:
                f.write('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
            os.chmod(fake, 0o755)
            base = {"PATH": d + ":/usr/bin:/bin", "HOSTNAME": "pod-a"}
            r = subprocess.run(["/bin/sh", self.path, *args], env=base | env, capture_output=True, text=True)
            return r.returncode, r.stdout.splitlines(), r.stderr

    def test_syntax(self):
        subprocess.run(["/bin/sh", "-n", self.path], check=True)

    def test_arguments(self):
        code, argv, _ = self.run_entrypoint({}, "--drain-timeout", "30")
        self.assertEqual(code, 0)
        self.assertEqual(argv, ["serve", "/models/model", "--host", "0.0.0.0", "--port", "8000", "--replica-id", "pod-a",
                                "--drain-timeout", "30"])
        with tempfile.NamedTemporaryFile("w") as key:
            key.write("s3cret")
            key.flush()
            code, argv, _ = self.run_entrypoint({"OGAI_API_KEY_FILE": key.name, "OGAI_PORT": "9000",
                                                 "OGAI_REPLICA_ID": "r7", "OGAI_MODEL": "/m"})
        self.assertEqual(code, 0)
        self.assertEqual(argv, ["serve", "/m", "--host", "0.0.0.0", "--port", "9000", "--replica-id", "r7",
                                "--api-key", "s3cret"])
        code, _, err = self.run_entrypoint({"OGAI_API_KEY_FILE": "/nonexistent/key"})
        self.assertEqual(code, 2)
        self.assertIn("cannot read", err)


class Balancers(unittest.TestCase):
    def test_haproxy_config(self):
        if not shutil.which("haproxy"):
            self.skipTest("haproxy is not installed (scripts/install_deps.sh installs it)")
        env = dict(os.environ, OGAI_LISTEN="127.0.0.1:18080", OGAI_REPLICA_1="127.0.0.1:18001",
                   OGAI_REPLICA_2="127.0.0.1:18002", OGAI_REPLICA_3="127.0.0.1:18003")
        subprocess.run(["haproxy", "-c", "-q", "-f", os.path.join(DEPLOY, "haproxy/haproxy.cfg")], env=env, check=True)

    def test_nginx_config(self):
        if not shutil.which("nginx"):
            self.skipTest("nginx is not installed (scripts/install_deps.sh installs it)")
        with tempfile.TemporaryDirectory() as d:
            for sub in ("logs", "tmp"):
                os.mkdir(os.path.join(d, sub))
            subprocess.run(["nginx", "-q", "-t", "-e", "stderr", "-p", d, "-c", os.path.join(DEPLOY, "nginx/nginx.conf")],
                           check=True)


class Docs(unittest.TestCase):
    def test_metric_names_in_docs_exist(self):
        with open(os.path.join(SOURCE, "docs/deploy.md")) as f:
            docs = set(re.findall(r"vllm:[a-z_]+", f.read()))
        with open(os.path.join(SOURCE, "src/serve/ops/metrics.cc")) as f:
            code = f.read()
        self.assertGreater(len(docs), 8)
        documented_absent = {"vllm:lora_requests_info", "vllm:cache_config_info", "vllm:num_preemptions_total",
                             "vllm:time_per_output_token_seconds"}  # named in docs/deploy.md as not exported
        missing = sorted(n for n in docs - documented_absent if n not in code)
        self.assertEqual(missing, [], "docs/deploy.md names metrics ogai does not export")


if __name__ == "__main__":
    unittest.main(verbosity=2)
