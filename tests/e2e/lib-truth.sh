# lib-truth.sh - what the truth matrix's scripts share (truth.sh: serial
# commands; truth-trees.sh: trees that are not one serial process;
# truth-load.sh: those trees under a background CPU load); sourced.
#
# The truth matrix: common commands run under benchtop, each wrapped in
# tests/helpers/truthrun (the outside measurement of the same run: wall
# time from fork to the last wait4, the whole tree's CPU from wait4, and
# what the whole tree read and wrote as the kernel summed it while
# truthrun reaped every process, orphans too), the bytes measured
# afterwards with stat, find -printf %s and wc -c.
# For every case: total bytes exact (0.5%), per-sample rate x interval
# adding up to the total (2%), CPU as wait4 says (2% + 20 ms), elapsed
# never shorter than the outside wall time (--no-sync, so no preparation
# or flush is in either; benchtop's clock starts before truthrun's and
# stops after it; how much longer is benchtop's own scheduling, measured
# by make bench, never here), no rate above twice the memcpy bandwidth
# benchtop measured at start, and for runs whose bytes moved over 6
# samples or more (slow cases are held to a rate so they do: rsync to 6
# MB/s, the append loop by its pauses: RATE=1) no sample holding more
# than a third (over fewer than 9 samples, than three times its share),
# for the others (whose rate is the machine's: a loaded machine may stretch
# them over 6 samples and starve them in some) no sample holding half, on
# a quiet machine only (a skip under load); the phases add up to the summary's bytes, read_bytes and
# write_bytes exactly, whatever side the run is rated by; read_bytes and
# write_bytes are there, the read side never above what the tree read at
# all (truthrun's rchar, but for truthrun's own last look at its counts).
# In every sample, the processes' bytes add up to no more than their
# workload's (each on its side, never read and written added).
# Cases with RTRUTH / WTRUTH check read_bytes / write_bytes against the
# truth too (WTRUTH=0: a tree that writes no file) (WEXACT=1: within 8 bytes, less than any line a command
# prints), SPLIT=1 user and sys each against wait4's, SPREAD=1 (one long
# system call, copy_file_range) that a run of 6 sample intervals or more
# shows no half of its bytes in one sample; IVAL is the sample interval
# (0.1 s unless set), BTARGS are more benchtop options.
# Trees that are not one serial process (parallel, background, orphaned,
# short-lived children; overwrites; appends; a copy_file_range; a command
# rated by its reads, then by its writes) run on a quiet machine
# (truth-trees.sh) and again under a background CPU load (truth-load.sh:
# one busy shell loop per CPU, at least two, started and killed by that
# script): every check holds under both but the even spread of a case not
# held to a rate (a skip under load).
. "$(dirname "$0")/lib.sh"

for c in jq rsync cpio md5sum dd cc; do
	command -v "$c" >/dev/null || skip_all "$c not installed (make check installs TEST_DEBS)"
done
T=$E2E_TMP
export HOME=$T/home XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/cfg TMPDIR=$T/tmp
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$TMPDIR" "$T/out"
chmod 700 "$XDG_RUNTIME_DIR"
H=$(dirname "$0")/../helpers
cc -std=c17 -O1 -static -o "$T/truthrun" "$H/truthrun.c" 2>/dev/null || cc -std=c17 -O1 -o "$T/truthrun" "$H/truthrun.c" || skip_all "cannot compile truthrun.c"
cc -std=c17 -O1 -o "$T/holdfiles" "$H/holdfiles.c" || skip_all "cannot compile holdfiles.c"

# Sources: one 24 MiB file (BIG), and, for make_tree, a tree of 2000
# small files (20 dirs).
BIG=$T/src/big
mkdir -p "$T/src"
head -c $((24 << 20)) /dev/urandom > "$BIG"
BIGSIZE=$(stat -c %s "$BIG")
make_tree() {
	local d
	mkdir -p "$T/src/tree"
	# one line per file, 100 to 15099 bytes, 100 files per directory
	for d in $(seq 0 19); do
		mkdir -p "$T/src/tree/d$d"
		awk -v d="$d" 'BEGIN { x = "x"; while (length(x) < 16384) x = x x;
			for (i = 0; i < 100; i++) print substr(x, 1, ((d * 100 + i) * 7919) % 15000 + 99) }' |
			(cd "$T/src/tree/d$d" && split -l 1 -a 3 - f)
	done
	[ "$(find "$T/src/tree" -type f | wc -l)" = 2000 ] || skip_all "could not make the 2000-file tree"
}

sum_sizes() { find "$@" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s }'; }

# run_case NAME TRUTH_CMD COMMAND: run COMMAND (sh -c) in $T/c.NAME under
# benchtop and truthrun; then TRUTH_CMD (run in the same directory) prints
# the true byte count; every check of the matrix is made on the run.
run_case() {
	local name=$1 truth_cmd=$2 cmd=$3 dir=$T/c.$1 out=$T/out/$1.json err=$T/out/$1.err
	[[ $name =~ ${TRUTH_ONLY:-.} ]] || return 0
	mkdir -p "$dir"
	[ -n "${PRE:-}" ] && (cd "$dir" && eval "$PRE")
	# shellcheck disable=SC2086 # BTARGS: benchtop options, word-split
	(cd "$dir" && "$BENCHTOP" -b --format json -i "${IVAL:-0.1}" --no-sync ${BTARGS:-} -- "$T/truthrun" sh -c "$cmd" > "$out" 2> "$err")
	local rc=$?
	if [ $rc != 0 ]; then
		fail "$name: benchtop exited $rc ($(tail -2 "$err" | tr '\n' ' '))"
		return
	fi
	local truth
	truth=$(cd "$dir" && eval "$truth_cmd")
	local wall user sys rchar
	read -r wall user sys rchar < <(sed -n 's/^truth wall=\([0-9.]*\) user=\([0-9.]*\) sys=\([0-9.]*\) rchar=\([0-9]*\) wchar=[0-9]*$/\1 \2 \3 \4/p' "$err" | tail -1)
	if [ -z "$wall" ]; then
		fail "$name: no outside measurement ($(tail -2 "$err" | tr '\n' ' '))"
		return
	fi
	# a case not held to a rate follows the machine's load: under this
	# script's load, or other work keeping the CPUs busy, its samples
	# need not be even
	local busy=$LOADED
	[ -z "$busy" ] && busy=$(awk -v n="$(nproc)" '$1 >= n { print "load average " $1 }' /proc/loadavg)
	local res
	res=$(jq -s -r --argjson truth "$truth" --argjson wall "$wall" \
		--argjson cpu "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.6f", u + s }')" \
		--argjson user "$user" --argjson sys "$sys" --argjson rchar "$rchar" \
		--argjson rtruth "${RTRUTH:-null}" --argjson wtruth "${WTRUTH:-null}" --arg split "${SPLIT:-}" --arg spread "${SPREAD:-}" --arg rate "${RATE:-}" --arg load "$busy" --arg wexact "${WEXACT:-}" --argjson ival "${IVAL:-0.1}" '
		def near($a; $b): (($a - $b) | fabs) <= 0.005 * $b + 1;
		(map(select(.type == "end"))[0]) as $fin
		| (.[0].memcpy_bps // $fin.memcpy_bps) as $bw
		| ($fin.summary[0]) as $s
		| ($s.counted // "written") as $side
		| [ .[] | select(.type == "sample") | .interval as $iv | .workloads[0]
		    | { iv: $iv, r: (if $side == "read" then .read_bps else .write_bps end),
		        m: ([.read_bps, .write_bps] | map(. // 0) | max) } ] as $w
		| ($w | map(select(.iv != null) | .r * .iv) | add) as $sum
		| ($w | map(select(.iv != null) | .r * .iv) | max) as $biggest
		| ($w | map(select(.iv != null and .r * .iv > 0)) | length) as $active
		| ($w | map(select(.iv != null)) | length) as $nsamp
		| ($w | map(.r // 0) | max) as $top
		| ($w | map(.m) | max) as $topo
		| ($fin.phases | map(.bytes) | add) as $ph
		| ([ .[] | select(.type == "sample")
		     | { p: ([.procs[]? | .bytes // 0] | add // 0), w: (.workloads[0].bytes // 0) }
		     | select(.p > 1.005 * .w + 65536) ] | length) as $pover
		| ($fin.phases | map(.read_bytes) | if any(. == null) then null else add end) as $phr
		| ($fin.phases | map(.write_bytes) | if any(. == null) then null else add end) as $phw
		| [ (if near($s.bytes; $truth) then "ok" else "bytes \($s.bytes) but \($truth) reached the files (\($side))" end),
		    (if (($sum - $s.bytes) | fabs) <= 0.02 * $s.bytes + 65536 then "ok" else "rates x intervals add up to \($sum | floor), total \($s.bytes)" end),
		    (if ((($s.user + $s.sys) - $cpu) | fabs) <= 0.02 * $cpu + 0.02 then "ok" else "CPU \($s.user + $s.sys) s, wait4 says \($cpu) s" end),
		    (if $s.elapsed >= $wall - 0.0006 then "ok"
		     else "elapsed \($s.elapsed) s, shorter than the outside wall time \($wall) s" end),
		    (if $top > 2 * $bw then "a rate of \($top) B/s passes twice memcpy (\($bw) B/s)"
		     elif $topo <= 2 * $bw then "ok"
		     else "a rate of \($topo) B/s on its other side passes twice memcpy (\($bw) B/s)" end),
		    (if (if $rate != "" then $nsamp else $active end) < 6 then "ok"
		     elif $rate == "" and $load != "" then "skip rates follow the run: its rate is the machine'"'"'s, under load (\($load))"
		     elif (if $rate != "" then $biggest <= $s.bytes / 3 or $biggest <= 3 * $s.bytes / $active
		           else $biggest <= $s.bytes / 2 end) then "ok"
		     else "one sample holds \($biggest | floor) of \($s.bytes) bytes moved over \($active) samples" end),
		    (if $spread == "" then "-"
		     elif $wall < 6 * $ival then "skip spread: the copy took \($wall) s, under 6 sample intervals of \($ival) s"
		     elif $biggest <= $s.bytes / 2 and $active >= 3 then "ok"
		     else "a \($wall) s copy shows \($biggest | floor) of its \($s.bytes) bytes in one sample, \($active) samples with any" end),
		    (if $ph == $s.bytes and $phr == $s.read_bytes and $phw == $s.write_bytes then "ok"
		     else "phases add up to \($ph) bytes, read \($phr), written \($phw); the summary says \($s.bytes), read \($s.read_bytes), written \($s.write_bytes)" end),
		    (if ($s.read_bytes | type) == "number" and ($s.write_bytes | type) == "number"
		        and $s.read_bytes <= $rchar + 4096
		        and $s.bytes == (if $side == "read" then $s.read_bytes else $s.write_bytes end) then "ok"
		     else "read_bytes \($s.read_bytes), write_bytes \($s.write_bytes), bytes \($s.bytes) (\($side)); the tree read \($rchar) in all" end),
		    (if $rtruth == null then "-" elif near($s.read_bytes; $rtruth) then "ok" else "read_bytes \($s.read_bytes) but \($rtruth) was read" end),
		    (if $wtruth == null then "-" elif (if $wexact != "" then (($s.write_bytes - $wtruth) | fabs) <= 8 else near($s.write_bytes; $wtruth) end) then "ok"
		     else "write_bytes \($s.write_bytes) but \($wtruth) was written" end),
		    (if $pover == 0 then "ok" else "in \($pover) samples its processes'"'"' bytes add up to more than their workload'"'"'s (read and written added?)" end),
		    (if $split == "" then "-" elif ((($s.user - $user) | fabs) <= 0.02 * $user + 0.02 and (($s.sys - $sys) | fabs) <= 0.02 * $sys + 0.02) then "ok"
		     else "user \($s.user) s, sys \($s.sys) s; wait4 says user \($user) s, sys \($sys) s" end)
		  ] | join("\n")' "$out")
	echo "# $name: elapsed $(jq -s 'map(select(.type == "end"))[0].summary[0].elapsed' "$out") s, outside wall $wall s; bytes $(jq -s -c 'map(select(.type == "end"))[0].summary[0] | [.bytes, .counted, .read_bytes, .write_bytes]' "$out"), truth $truth, tree rchar $rchar"
	local what=(bytes "rates add up" CPU elapsed ceiling "rates follow the run" "spread over samples" "phases add up" "both directions" "read bytes" "written bytes" "process bytes on one side" "user/sys split")
	local i=0
	while IFS= read -r line; do
		case $line in
		ok) ok "$name: ${what[$i]}" ;;
		-) ;;
		skip\ *) skip "$name: ${line#skip }" ;;
		*) fail "$name: $line" ;;
		esac
		i=$((i + 1))
	done <<< "$res"
	# a failed case shows its samples: when, the workload's rates, and
	# the processes each one saw (what was seen when)
	grep -qvxE 'ok|-|skip .*' <<< "$res" &&
		jq -c 'select(.type == "sample") | [.t, .interval, .workloads[0].read_bps, .workloads[0].write_bps,
			[.procs[]? | "\(.pid):\(.comm):\(.bytes // 0)"]]' "$out" | head -60 | sed "s/^/# $name sample /"
	return 0
}

# A background CPU load: one busy shell loop per CPU, at least two.
LOAD_PIDS=()
LOADED=
load_start() {
	local n i
	LOADED="a background load"
	n=$(nproc)
	[ "$n" -lt 2 ] && n=2
	for i in $(seq "$n"); do
		sh -c 'while :; do :; done' &
		LOAD_PIDS+=($!)
	done
}
load_stop() {
	local p
	for p in "${LOAD_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	LOAD_PIDS=()
	LOADED=
}
CFR_DIR=

# TRUTH_ONLY=ERE runs only the cases it matches; TRUTH_KEEP=DIR keeps
# their records and standard errors there.
trap 'load_stop; rm -rf "$CFR_DIR"; [ -n "${TRUTH_KEEP:-}" ] && mkdir -p "$TRUTH_KEEP" && cp "$T"/out/* "$TRUTH_KEEP"/; e2e_cleanup' EXIT

# Trees that are not one serial process: trees SUFFIX runs them all, each
# case named with SUFFIX; trees_setup makes their sources first.
trees_setup() {
	F8=$T/src/f8m
	head -c $((8 << 20)) "$BIG" > "$F8"
	F8SIZE=$(stat -c %s "$F8")
	# The copy_file_range source, on tmpfs when there is one (fast enough to
	# be one call of a few seconds, and no disk written), else beside the rest.
	CFR_DIR=$T/cfr
	[ -d /dev/shm ] && [ -w /dev/shm ] && CFR_DIR=$(mktemp -d /dev/shm/benchtop-truth.XXXXXX)
	mkdir -p "$CFR_DIR"
	CFR_SIZE=$((512 << 20))
	CFR_SRC=$CFR_DIR/src
	head -c "$CFR_SIZE" /dev/zero > "$CFR_SRC" || { skip "cfr: cannot make a $CFR_SIZE-byte source in $CFR_DIR"; CFR_SRC=; }
}
trees() {
	local sfx=$1
	# parallel children (xargs -P2): 48 reads of 8 MiB
	WTRUTH=0 RTRUTH=$((48 * F8SIZE)) run_case "xargs-P2$sfx" "echo $((48 * F8SIZE))" \
		"for i in \$(seq 48); do echo '$F8'; done | xargs -P2 -n4 md5sum > /dev/null"
	# background children reaped by wait
	WTRUTH=0 RTRUTH=$((60 * F8SIZE)) run_case "background$sfx" "echo $((60 * F8SIZE))" \
		"for i in \$(seq 60); do cat '$F8' > /dev/null & done; wait"
	# orphaned readers: handed to the subreaper, never waited for by sh
	WTRUTH=0 RTRUTH=$((40 * F8SIZE)) SPLIT=1 run_case "orphan-readers$sfx" "echo $((40 * F8SIZE))" \
		"for i in \$(seq 40); do (cat '$F8' > /dev/null &); done"
	# orphaned writers
	SPLIT=1 run_case "orphan-writers$sfx" "sum_sizes ." \
		"for i in \$(seq 40); do (cat '$F8' > o.\$i &); done"
	# reads a lot, writes a little: rated by what it read
	RTRUTH=$BIGSIZE run_case "md5sum-sums$sfx" "echo $BIGSIZE" "md5sum '$BIG' > sums.txt"
	# in-place overwrites of dirty pages (dd's stderr lines are not bytes)
	PRE="head -c $BIGSIZE /dev/zero > ow" WTRUTH=$((3 * BIGSIZE)) run_case "overwrite$sfx" "echo $((3 * BIGSIZE))" \
		"i=0; while [ \$i -lt 3 ]; do dd if='$BIG' of=ow bs=1M conv=notrunc; i=\$((i + 1)); done"
	# a command's own stderr lines (to benchtop's standard error) are not bytes
	WTRUTH=300000 WEXACT=1 run_case "stderr-lines$sfx" "sum_sizes ." \
		"i=0; while [ \$i -lt 3 ]; do dd if='$BIG' of=small.\$i bs=100000 count=1; i=\$((i + 1)); done"
	# short appenders, none holding the file across samples for long
	# (each one's standard error on /dev/null: its messages, not bytes
	# of a file, but counted with them when it is never seen, ~100 bytes
	# a run)
	RATE=1 run_case "append-loop$sfx" "stat -c %s ap" \
		"i=0; while [ \$i -lt 12 ]; do dd if='$F8' of=ap bs=64k oflag=append conv=notrunc 2>/dev/null; sleep 0.15; i=\$((i + 1)); done"
	# one copy_file_range call (coreutils cp) of 512 MiB on tmpfs, sampled
	# every 50 ms: its bytes show while the call runs, sample by sample
	if [ -n "$CFR_SRC" ]; then
		IVAL=0.05 SPREAD=1 RTRUTH=$CFR_SIZE WTRUTH=$CFR_SIZE run_case "cfr$sfx" "stat -c %s '$CFR_DIR/out'" "cp '$CFR_SRC' '$CFR_DIR/out'"
		rm -f "$CFR_DIR/out"
	fi
	# read-only
	WTRUTH=0 RTRUTH=$BIGSIZE run_case "cat-null$sfx" "echo $BIGSIZE" "cat '$BIG' > /dev/null"
	# the same with benchtop's record in the directory the run starts in:
	# a file benchtop writes there is not one the tree changed
	WTRUTH=0 RTRUTH=$BIGSIZE BTARGS="-o own.jsonl" run_case "cat-null-record$sfx" "echo $BIGSIZE" "cat '$BIG' > /dev/null"
	# rated by its reads, then by its writes: it reads the big file (its
	# sum to a file: nothing of it goes to a device), waits for the marker
	# (its record in benchtop's output), then writes twice as much; the
	# phase before the marker holds the reads
	BTARGS="--at 1:marker=write" run_case "side-flip$sfx" "sum_sizes ." \
		"md5sum '$BIG' > sum; until grep -q '\"marker\"' '$T/out/side-flip$sfx.json'; do sleep 0.05; done; head -c $((2 * BIGSIZE)) /dev/zero > out"
	side_flipped "side-flip$sfx"
}

# The side-flip case did flip: its samples were rated by their reads, then
# by their writes, the first phase holds the reads, the run is rated by
# what it wrote.
side_flipped() {
	local f=$T/out/$1.json
	[ -f "$f" ] || return 0
	jq -e -s '[.[] | select(.type == "sample") | .workloads[0].counted // empty] as $c
		| (map(select(.type == "end"))[0]) as $e
		| ($c | index("read")) as $r | ($c | rindex("written")) as $w
		| $r != null and $w != null and $r < $w
		and $e.summary[0].counted == "written" and ($e.phases | length) == 2
		and $e.phases[0].read_bytes > 2 * $e.phases[0].write_bytes' "$f" >/dev/null &&
		ok "$1: rated by its reads, then by its writes" ||
		fail "$1: the case did not flip sides ($(jq -s -c '[(.[] | select(.type == "sample") | .workloads[0].counted)] | unique' "$f"), $(jq -s -c 'map(select(.type == "end"))[0].phases | map([.read_bytes, .write_bytes])' "$f"))"
}
# rated_by_reads NAME: the case's summary says it counted what it read.
rated_by_reads() {
	local f=$T/out/$1.json
	[ -f "$f" ] || return 0
	jq -e -s 'map(select(.type == "end"))[0].summary[0].counted == "read"' "$f" >/dev/null &&
		ok "$1: rated by what it read" ||
		fail "$1: not rated by its reads: $(tail -1 "$f" | jq -c '.summary[0]')"
}
