#!/usr/bin/env python3
"""Checks docker/compose.yaml and docker/prometheus.yml without a Docker engine (build-local.sh runs it).

Both must parse as YAML; every service has an image or a build whose Dockerfile exists; every
depends_on names a service with a valid condition; named volumes are declared and bind-mounted files
exist; Sluice's port is the image's EXPOSE; the Thanos Querier has a StoreAPI endpoint for every Sluice
instance, each of which serves the StoreAPI on that port with its own external labels; Prometheus
scrapes Sluice and remote-reads from it.
Prints one line per problem and exits 1 if there is any.
Usage: check-compose.py COMPOSE_FILE PROMETHEUS_FILE
"""
import os
import re
import sys

import yaml

CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
REQUIRED = {"kafka", "kafka-init", "sluice", "sluice-2", "thanos-query", "prometheus", "loadgen"}


def check_compose(path, problems):
    base = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        compose = yaml.safe_load(f)
    services = compose.get("services") or {}
    declared_volumes = set((compose.get("volumes") or {}).keys())
    for name in sorted(REQUIRED - services.keys()):
        problems.append(f"{path}: no service '{name}'")
    for name, service in services.items():
        build = service.get("build")
        if not service.get("image") and not build:
            problems.append(f"{path}: service {name} has neither image nor build")
        if build:
            context = os.path.join(base, build.get("context", "."))
            dockerfile = os.path.join(context, build.get("dockerfile", "Dockerfile"))
            if not os.path.isfile(dockerfile):
                problems.append(f"{path}: service {name}: no Dockerfile at {dockerfile}")
        for dep, spec in (service.get("depends_on") or {}).items():
            if dep not in services:
                problems.append(f"{path}: service {name} depends on unknown service {dep}")
            if spec.get("condition") not in CONDITIONS:
                problems.append(f"{path}: service {name}: bad depends_on condition {spec.get('condition')}")
            elif spec["condition"] == "service_healthy" and not has_healthcheck(services[dep], base):
                problems.append(f"{path}: service {name} waits for {dep} to be healthy, which has no healthcheck")
        for volume in service.get("volumes") or []:
            source = volume.split(":")[0]
            if source.startswith("."):
                if not os.path.exists(os.path.join(base, source)):
                    problems.append(f"{path}: service {name} mounts missing {source}")
            elif source not in declared_volumes:
                problems.append(f"{path}: service {name} uses undeclared volume {source}")
    ports = (services.get("sluice") or {}).get("ports") or []
    if not any(str(p).endswith(":" + exposed_port(base)) for p in ports):
        problems.append(f"{path}: sluice does not publish the image's EXPOSEd port {exposed_port(base)}")
    check_thanos(path, services, problems)


def check_thanos(path, services, problems):
    """Every Sluice instance is a strict endpoint of the Querier, on the port it serves the StoreAPI on."""
    command = [str(c) for c in (services.get("thanos-query") or {}).get("command") or []]
    if not command or command[0] != "query":
        problems.append(f"{path}: thanos-query does not run 'query'")
    endpoints = {c.split("=", 1)[1] for c in command if c.startswith("--endpoint-strict=")}
    replica = {c.split("=", 1)[1] for c in command if c.startswith("--query.replica-label=")}
    labels = set()
    for name in ("sluice", "sluice-2"):
        env = (services.get(name) or {}).get("environment") or {}
        port = str(env.get("SLUICE_STORE_GRPC_PORT", ""))
        if f"{name}:{port}" not in endpoints:
            problems.append(f"{path}: thanos-query has no --endpoint-strict={name}:{port or '?'}")
        external = dict(kv.split("=", 1) for kv in str(env.get("SLUICE_STORE_EXTERNAL_LABELS", "")).split(",") if "=" in kv)
        if not replica & external.keys():
            problems.append(f"{path}: {name}'s external labels carry no --query.replica-label of thanos-query")
        labels.add(tuple(sorted(external.items())))
    if len(labels) != 2:
        problems.append(f"{path}: sluice and sluice-2 advertise the same external labels")


def has_healthcheck(service, base):
    """A service is healthy-able by its own healthcheck or by the image's HEALTHCHECK (sluice's build)."""
    check = service.get("healthcheck")
    if check:
        return not check.get("disable", False)
    build = service.get("build")
    if not build:
        return False
    with open(os.path.join(base, build.get("context", "."), build.get("dockerfile", "Dockerfile")), encoding="utf-8") as f:
        return re.search(r"^HEALTHCHECK ", f.read(), re.M) is not None


def exposed_port(base):
    with open(os.path.join(base, "Dockerfile"), encoding="utf-8") as f:
        match = re.search(r"^EXPOSE (\d+)", f.read(), re.M)
    return match.group(1) if match else "?"


def check_prometheus(path, problems):
    with open(path, encoding="utf-8") as f:
        config = yaml.safe_load(f)
    targets = [t for job in config.get("scrape_configs") or [] for sc in job.get("static_configs") or []
               for t in sc.get("targets") or []]
    if "sluice:9095" not in targets:
        problems.append(f"{path}: no scrape target sluice:9095")
    urls = [r.get("url") for r in config.get("remote_read") or []]
    if "http://sluice:9095/api/v1/read" not in urls:
        problems.append(f"{path}: no remote_read from http://sluice:9095/api/v1/read")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    problems = []
    for check, path in ((check_compose, argv[1]), (check_prometheus, argv[2])):
        try:
            check(path, problems)
        except (OSError, yaml.YAMLError, AttributeError, TypeError) as e:
            problems.append(f"{path}: {e}".replace("\n", " "))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
