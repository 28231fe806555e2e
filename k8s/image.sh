#!/usr/bin/env bash
# Builds the image from the Dockerfile with podman on a Debian base made here (mmdebstrap with
# openjdk-17-jre-headless: no container registry is needed), checks its configuration (non-root
# user, ports, entrypoint), then runs it: ready, one commit, SIGTERM, a clean stop.
# Where podman cannot start containers at all (its OCI runtime is refused by the machine), the run
# is reported as not possible and the build and configuration checks still decide the result.
# Needs the jar (mvn -B -DskipTests package); installs podman and mmdebstrap when missing (root).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f target/lance-version-gateway.jar ] || { echo "build the jar first"; exit 2; }
if ! command -v podman >/dev/null || ! command -v mmdebstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman mmdebstrap >/dev/null
fi
base=localhost/lvg-debian-jre:bookworm
image=localhost/lance-version-gateway:check
if ! podman image exists $base; then
  dir=$(mktemp -d)
  mmdebstrap --quiet --variant=apt --include=openjdk-17-jre-headless,ca-certificates bookworm \
    "$dir/rootfs.tar"
  podman import --quiet "$dir/rootfs.tar" $base >/dev/null
  rm -rf "$dir"
fi
podman build --quiet --build-arg JAR_FROM=context --build-arg JRE_IMAGE=$base -t $image . >/dev/null
user=$(podman image inspect $image --format '{{.Config.User}}')
entrypoint=$(podman image inspect $image --format '{{json .Config.Entrypoint}}')
ports=$(podman image inspect $image --format '{{json .Config.ExposedPorts}}')
echo "image $image: user $user, entrypoint $entrypoint, ports $ports"
[ "$user" = "10001:10001" ] || { echo "the image must run as 10001:10001"; exit 1; }
[[ $entrypoint == *lance-version-gateway.jar* ]] || { echo "unexpected entrypoint"; exit 1; }
[[ $ports == *2333/tcp* && $ports == *2334/tcp* ]] || { echo "ports 2333 and 2334 not exposed"; exit 1; }

api=2533
mgmt=2534
podman rm -f lvg-image-check >/dev/null 2>&1 || true
if ! out=$(podman run -d --name lvg-image-check --network host \
  -e LVG_PORT=$api -e LVG_MANAGEMENT_PORT=$mgmt -e LVG_MANIFEST_MODE=record \
  -e LVG_BOOTSTRAP_TENANT=demo -e LVG_BOOTSTRAP_API_KEY=demo-key $image 2>&1); then
  if [[ $out == *"rlimit"*"Operation not permitted"* || $out == *"rlimit"*"operation not permitted"* ]]; then
    echo "podman cannot start containers on this machine: $out"
    echo "image built and its configuration checked; not run"
    podman rm -f lvg-image-check >/dev/null 2>&1 || true
    exit 0
  fi
  echo "$out"; exit 1
fi
trap 'podman rm -f lvg-image-check >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 120); do curl -sf "localhost:$mgmt/health/ready" >/dev/null && break; sleep 1; done
curl -sf "localhost:$mgmt/health/ready" >/dev/null || { podman logs lvg-image-check; exit 1; }
h=(-H 'x-api-key: demo-key' -H 'Content-Type: application/json')
curl -sf "${h[@]}" -X POST "localhost:$api/v1/namespace/img/create" -d '{}' >/dev/null
curl -sf "${h[@]}" -X POST "localhost:$api/v1/table/img%24t/declare" -d '{}' >/dev/null
curl -sf "${h[@]}" -X POST "localhost:$api/v1/table/img%24t/version/create" \
  -d '{"version":1,"manifest_path":"img/t.lance/_versions/1.manifest"}' >/dev/null
podman stop --time 30 lvg-image-check >/dev/null
podman logs lvg-image-check 2>&1 | grep -q "gateway stopped" || { podman logs lvg-image-check; exit 1; }
echo "the image served a commit and stopped cleanly on SIGTERM"
