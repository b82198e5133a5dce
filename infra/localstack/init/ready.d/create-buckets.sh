#!/bin/bash
# LocalStack init hook (ready stage): the buckets orders.yaml uses, and one sample delivery so that
# the first rehearsal run has something to ingest. Runs inside the container, where awslocal
# talks to this LocalStack with its test credentials.
set -euo pipefail
for bucket in landing lake; do
  awslocal s3api head-bucket --bucket "$bucket" 2>/dev/null || awslocal s3 mb "s3://$bucket"
done
awslocal s3 cp /etc/localstack/replaysafe-sample/orders-0001.json \
  s3://landing/orders/2026-11-29/orders-0001.json
echo "replaysafe: buckets landing, lake ready; sample delivery in s3://landing/orders/"
