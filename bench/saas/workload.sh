# bench/saas/workload.sh: what bench/advice needs to know of the multi-tenant workload.
# shellcheck shell=bash disable=SC2034
title="multi-tenant SaaS"
scripts="app.sql@9 writer.sql@1"
written="tracker_task"
describe() { echo "$((400000 * $1)) tasks of $((200 * $1)) tenants (power law: the largest has 7%), 50 members and 10 projects each"; }
