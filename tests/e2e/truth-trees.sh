#!/usr/bin/env bash
# The truth matrix, trees that are not one serial process (parallel,
# background, orphaned and short-lived children; overwrites; appends; a
# copy_file_range; a command rated by its reads, then by its writes) on
# a machine with no load of this script's own.
. "$(dirname "$0")/lib-truth.sh"
trees_setup
trees ""
rated_by_reads md5sum-sums

finish
