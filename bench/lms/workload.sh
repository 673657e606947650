# bench/lms/workload.sh: what bench/advice needs to know of the LMS workload.
# shellcheck shell=bash disable=SC2034
title=LMS
scripts="dashboard.sql@9 writer.sql@1"
written="lms_notification"
describe() { echo "$((100000 * $1)) notifications, $((20000 * $1)) announcements, $((5000 * $1)) users"; }
