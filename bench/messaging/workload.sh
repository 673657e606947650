# bench/messaging/workload.sh: what bench/advice needs to know of the messaging workload.
# shellcheck shell=bash disable=SC2034
title=messaging
scripts="chat.sql@9 writer.sql@1"
written="chat_message chat_membership"
describe() { echo "$((400000 * $1)) messages in $((2000 * $1)) rooms (power law), $((10000 * $1)) users in 8 rooms each"; }
