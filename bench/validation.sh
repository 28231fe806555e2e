#!/usr/bin/env bash
# What checking a request against its schema costs, in CPU time of one thread per request, for the
# body of a version/create: through vertx-openapi's RequestValidator (schema validators made on every
# call), through a validator made once per operation (what the gateway does for every operation but
# version/create), and decoding the body alone. No server and no database: ValidationCost in the
# test sources, in one JVM.
#   bench/validation.sh [requests per round]     (default 20000; 5 rounds, the last one reported)
set -euo pipefail
cd "$(dirname "$0")/.."
DB=lvg_validation TABLES=0 DURATION=0 WARM_UP=0
. bench/lib.sh
build
java -cp "$CP" dev.lvg.bench.ValidationCost "${1:-20000}"
