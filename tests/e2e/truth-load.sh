#!/usr/bin/env bash
# The truth matrix's trees (truth-trees.sh) under a background CPU load:
# one busy shell loop per CPU, at least two, started and killed here.
. "$(dirname "$0")/lib-truth.sh"
trees_setup
load_start
trees "-load"
load_stop
rated_by_reads md5sum-sums-load

finish
