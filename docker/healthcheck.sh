#!/bin/bash
# The image's HEALTHCHECK: exit 0 when Sluice answers GET /-/ready with 200 (WALs replayed and Kafka
# partitions assigned), else 1. Plain bash (/dev/tcp), so it needs neither curl nor a second JVM: a
# check costs a few milliseconds and no memory worth counting, every interval, for the container's life.
# The port is SLUICE_HTTP_PORT when set (as the server reads it), else the default 9095.
port="${SLUICE_HTTP_PORT:-9095}"
exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
printf 'GET /-/ready HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
IFS= read -r -t 5 status <&3 || exit 1
case "$status" in
  "HTTP/1."?" 200 "*) exit 0 ;;
  *) echo "not ready: ${status%$'\r'}"; exit 1 ;;
esac
