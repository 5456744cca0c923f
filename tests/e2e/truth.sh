#!/usr/bin/env bash
# The truth matrix, serial commands: cp, dd, rsync, cpio, pipelines, held
# and sparse files, 300 short children, an orphan (lib-truth.sh says what
# each case checks).
. "$(dirname "$0")/lib-truth.sh"
make_tree

run_case cp "stat -c %s out" "cp '$BIG' out"
PRE="head -c 1000000 /dev/zero > out" run_case cp-over "stat -c %s out" "cp '$BIG' out"
PRE="echo appended-to > out" run_case cat-append "echo \$((\$(stat -c %s out) - 12))" "cat '$BIG' >> out"
run_case dd-4k "stat -c %s out" "dd if='$BIG' of=out bs=4k 2>/dev/null"
RATE=1 run_case rsync "sum_sizes dst" "rsync -a --bwlimit=6000 '$T/src/tree/' dst/"
run_case cp-r "sum_sizes dst" "cp -r '$T/src/tree' dst"
run_case cpio "sum_sizes dst" "mkdir dst && cd '$T/src/tree' && find . | cpio -pdm --quiet '$T/c.cpio/dst'"
WTRUTH=0 run_case cat-null "echo $BIGSIZE" "cat '$BIG' > /dev/null"
WTRUTH=0 run_case md5sum "echo $BIGSIZE" "md5sum '$BIG' > /dev/null"
run_case pipeline "wc -c < out" "cat '$BIG' | gzip -1 | gzip -d | cat > out"
run_case hold4000 "stat -c %s out" "mkdir held && '$T/holdfiles' 4000 held out 6000000"
# a sparse file: 64 KiB written after every 1 MiB hole; its data counts
run_case sparse "echo 6000000" "mkdir held && '$T/holdfiles' 0 held out 6000000 1048576"
run_case children300 "sum_sizes ." "for i in \$(seq 300); do head -c 10000 '$BIG' > s.\$i; done"
run_case orphan "stat -c %s orphan.out" \
	"( i=0; while [ \$i -lt 100000 ]; do i=\$((i + 1)); done; head -c 4000000 '$BIG' > orphan.out ) & sleep 0.01"

# A read-only command says which side it counted.
rated_by_reads md5sum

finish
