#!/usr/bin/env bash
# Leaned on, the dashboard holds: attached processes are measured as a
# workload, phases end with the work, markers never overwrite each other,
# spread gives busy roles CPUs of their own, the first minute reads as a
# steady rate, and the smaller figures on screen tell the truth.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP
# screen_has SESSION TEXT: the pane shows TEXT (fixed string).
screen_has() { tm_screen "$1" | grep -qF -- "$2"; }
# ended FILE: the record holds its end line.
ended() { grep -q '"type":"end"' "$1" 2>/dev/null; }

# ---- phases end with the work -------------------------------------------
# A 192 MiB cp in the dashboard, left on screen for a while after it ended,
# then q: the last phase ends at the copy's end, so its rate agrees with
# the summary's.
head -c 192M /dev/zero > "$T/big"
tm_start ph 120x40 "'$BENCHTOP' -i 0.2 -o '$T/ph.jsonl' -- cp '$T/big' '$T/big.copy' 2>'$T/ph.err'"
wait_for 60 screen_has ph "all workloads have ended"
check "finished run: stays on screen" screen_has ph "all workloads have ended"
# some samples after the end (counted in the record, not timed)
n_end=$(grep -c '"type":"sample"' "$T/ph.jsonl")
wait_for 30 sh -c "[ \$(grep -c '\"type\":\"sample\"' '$T/ph.jsonl') -ge $((n_end + 15)) ]"
tm_keys ph q
wait_for 30 ended "$T/ph.jsonl"
echo "# summary $(jq -c 'select(.type=="end") | .summary' "$T/ph.jsonl") phases $(jq -c 'select(.type=="end") | .phases | map({from,to,bps})' "$T/ph.jsonl")"
# (the end is stamped when the copy ended: at the latest the first sample
# that shows it done; no slack in seconds)
check "finished run: one phase that ends by the copy's end" quiet jq -se '
	(.[] | select(.type=="end")) as $e | ($e.phases | length) == 1 and
	($e.phases[0].to <= ([.[] | select(.type=="sample" and .workloads[0].state=="done") | .t] | first)) and
	([.[] | select(.type=="sample") | .t] | last) > $e.phases[0].to + 1' "$T/ph.jsonl"
# (cp copies in one copy_file_range that can end before the first tick's
# look at its descriptors; its destination is outside the run's directory)
check "finished run: the copy's bytes are counted as written, exactly" quiet jq -se '
	(.[] | select(.type=="end")) as $e | $e.summary[0].counted == "written" and
	$e.summary[0].write_bytes == 201326592 and $e.summary[0].bytes == 201326592' "$T/ph.jsonl"
check "finished run: the phase holds the copy's bytes, its rate over its own span" quiet jq -se '
	(.[] | select(.type=="end")) as $e | $e.phases[0] as $p |
	$p.bytes == $e.summary[0].bytes and
	(($p.bps * ($p.to - $p.from) / $p.bytes) - 1 | fabs) < 0.01' "$T/ph.jsonl"
tm_kill ph

# ---- markers never overwrite each other ----------------------------------
# Four markers 0.4 s apart: at every size each label reads in full, on the
# graph or in the event strip.
labels="alpha bravo charlie delta"
for size in 80x24 120x40 200x60; do
	tm_start mk$size $size "'$BENCHTOP' --no-mouse --at 1:marker=alpha --at 1.4:marker=bravo --at 1.8:marker=charlie --at 2.2:marker=delta -- sleep 600"
	all_labels() { local l; for l in $labels; do tm_screen "mk$size" | grep -qE -- "(◆|\*)$l([^a-z]|\$)" || return 1; done; }
	wait_for 30 all_labels
	tm_screen mk$size > "$T/mk$size.txt"
	check "markers at $size: every label in full ($(grep -oE '(◆|\*)[a-z]+' "$T/mk$size.txt" | tr '\n' ' '))" all_labels
	tm_keys mk$size q
	tm_kill mk$size
done

# ---- smaller truths -----------------------------------------------------
bash tests/fakesys.sh "$T/sys" --cpus 2 >/dev/null 2>&1
GOV=$T/sys/devices/system/cpu/cpufreq/policy0/scaling_governor
[ -f "$GOV" ] || GOV=$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor

# The time axis is labelled at round times only.
tm_start ax 80x24 "'$BENCHTOP' --no-mouse -i 0.5 -- sleep 600"
axis_labels() { tm_screen ax | grep -E '^ +─+' | grep -oE '[0-9]+m?[0-9]*s?' ; }
wait_for 60 sh -c "tmux capture-pane -p -t bt$$-ax | grep -E '^ +─.*[0-9]+s' | grep -qE '(^|[^0-9])(1[0-9]|[2-9][0-9])s'"
ticks=$(axis_labels | tr '\n' ' ')
check "time axis: labels at round times, 5 s apart or more ($ticks)" sh -c "[ -n '$ticks' ] && for t in $ticks; do n=\${t%s}; [ \$((n % 5)) = 0 ] || exit 1; done"
# Before the first key the status line suggests the first step; after a
# key its message goes after a few seconds.
check "status line: the first step before the first key" screen_has ax "select a process"
tm_keys ax u
wait_for 10 screen_has ax "units"
check "status line: a key's message shows" screen_has ax "units"
gone() { ! screen_has ax "units:" && ! screen_has ax "select a process"; }
wait_for 30 gone
check "status line: the message expires, and the hint does not come back" gone
# o marks its column in the heading.
tm_keys ax o
wait_for 10 sh -c "tmux capture-pane -p -t bt$$-ax | grep -qE '%CPU(▼|v) '"
check "sort: the heading marks %CPU" sh -c "tmux capture-pane -p -t bt$$-ax | grep -qE '%CPU(▼|v) '"
tm_keys ax q
tm_kill ax

# A single copy that ended: no "(pass 2)" in the header.
tm_start pa 120x40 "'$BENCHTOP' --no-mouse -- cp '$T/big' '$T/big.copy2'"
wait_for 60 screen_has pa "all workloads have ended"
check "header: a single finished copy shows no pass count" sh -c "! tmux capture-pane -p -t bt$$-pa | head -1 | grep -q 'pass'"
tm_keys pa q
tm_kill pa

# At 80x24 the default run's placement strip shows reader and writer, a
# CPU row shows +N only after a PID, and a capped governor stays whole.
# (on a small tmpfs where it can: the default source is written sooner)
dft=$T/tmp
small_tmp "$T/dfsmall" && dft=$T/dfsmall
tm_start df 80x24 "TMPDIR='$dft' '$BENCHTOP' --no-mouse --sysfs '$T/sys' -o '$T/df.jsonl' --at 1:governor=performance --at 1.5:maxfreq=1600000"
strip_roles() { tm_screen df | sed -n '/Placement/,/Processes/p' | grep -q ' reader ' && tm_screen df | sed -n '/Placement/,/Processes/p' | grep -q ' writer '; }
wait_for 60 strip_roles
check "80x24: the placement strip shows reader and writer" strip_roles
wait_for 20 screen_has df "cap 1.60G"
tm_screen df > "$T/df.txt"
check "80x24: a capped governor reads in full" grep -qE '^cpu0 .*cap 1\.60G performance( |$)' "$T/df.txt"
check "80x24: no CPU row shows +N without a PID" sh -c "! grep -E '^cpu[0-9]' '$T/df.txt' | grep -qE '(performance|ondemand) +\+[0-9]'"
# The first minute: the default copies without a flush per pass (no comb),
# and before the first key the status line suggests the first step.
check "default run: its passes are not flushed ($(jq -r 'select(.type=="start") | .workloads[0].spec' "$T/df.jsonl"))" \
	quiet jq -se '(.[] | select(.type=="start")).workloads[0].spec | test("sync=none")' "$T/df.jsonl"
# (after the --at actions' messages have expired: no key came yet)
check "default run: the status line suggests the first step" wait_for 30 screen_has df "select a process, 0-9 pin it"
tm_keys df q
wait_for 20 sh -c "! tmux has-session -t bt$$-df 2>/dev/null || ! tmux capture-pane -p -t bt$$-df | grep -q Throughput"
tm_kill df
# (the screen is given back before the governors are put back)
gov_back() { [ "$(cat "$GOV")" = ondemand ]; }
check "governor put back after the run" wait_for 20 gov_back
check "... read back: $(cat "$GOV")" gov_back

# Bits are never cut in the processes table.
tm_start bi 120x40 "'$BENCHTOP' --no-mouse --units bits -- sh -c 'while :; do head -c 64M /dev/zero > \"$T/bits\"; done'"
wait_for 30 sh -c "tmux capture-pane -p -t bt$$-bi | grep -qE '[0-9] [kMG]?bit/s'"
# (a frame the terminal has only half taken in: the next one)
bits_full() { tm_screen bi > "$T/bi.txt"; grep -qE '[0-9] [kMG]?bit/s' "$T/bi.txt" && ! grep -qE 'bit/( |$)' "$T/bi.txt"; }
wait_for 10 bits_full
check "bits: rates in full ($(grep -oE '[0-9.]+ [kMG]?bit/?s?' "$T/bi.txt" | sort -u | head -3 | tr '\n' ' '))" bits_full
tm_keys bi q
tm_kill bi

# The residency colour legend at 120 and 200 columns.
for size in 120x40 200x60; do
	tm_start rs$size $size "'$BENCHTOP' --no-mouse --sysfs '$T/sys' --at 1:marker=a-long-marker-label -- sleep 600"
	wait_for 20 screen_has rs$size "a-long-marker-label"
	# (a frame the terminal has only half taken in shows no legend yet)
	legend() { tmux capture-pane -p -t "bt$$-rs$size" | grep 'Residency' | grep -qE '(≤|<=)?[0-9.]+[GM] +[^ ]+[0-9.]+[GM] +[^ ]+[0-9.]+[GM] ─'; }
	check "residency legend at $size" wait_for 10 legend
	legend || tmux capture-pane -p -t "bt$$-rs$size" | grep -m1 Residency | sed 's/^/# /'
	tm_keys rs$size q
	tm_kill rs$size
done

# The final cpufreq table shows what was restored, and the run's state.
"$BENCHTOP" -b -t 1.5 --sysfs "$T/sys" --at 0.5:governor=performance -- sleep 5 > "$T/pol.txt" 2>&1
check "cpufreq table: the governor as restored ($(grep -A1 '^policy' "$T/pol.txt" | tail -1))" \
	grep -qE '^0 .* ondemand .*the run ended under performance' "$T/pol.txt"
check "cpufreq table: the tree says so too ($(cat "$GOV"))" [ "$(cat "$GOV")" = ondemand ]

# ---- spread: one busy role per CPU --------------------------------------
# Cpus_allowed_list of PID, read from /proc.
allowed() { awk '/^Cpus_allowed_list/ {print $2}' /proc/"$1"/status 2>/dev/null; }
# pid_of_comm PARENT COMM: the descendant of PARENT named COMM.
pid_of_comm() { local p; for p in $(descendants "$1"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ] && echo "$p" && return; done; }
apart() { local r w; r=$(allowed "$1"); w=$(allowed "$2"); [ -n "$r" ] && [ "$r" != "$w" ] && [ "${r#*[-,]}" = "$r" ] && [ "${w#*[-,]}" = "$w" ]; }
if [ "$(nproc)" -ge 2 ]; then
	head -c 32M /dev/urandom > "$T/sp.src"
	for run in 1 2 3; do
		tm_start sp$run 120x40 "'$BENCHTOP' --no-mouse --loop --at 0.5:pack -w copy:engine=pipe,procs=3,src='$T/sp.src',dst='$T/sp.dst$run'"
		bt=$(tmux list-panes -t "bt$$-sp$run" -F '#{pane_pid}')
		wait_for 20 sh -c "[ -n \"\$(ps -o pid= --ppid $bt)\" ]"
		# packed (read from /proc: the status line's "pack:" goes after
		# a few seconds, and a look at the screen can take longer)
		packed() {
			reader=$(pid_of_comm "$bt" bt-reader) writer=$(pid_of_comm "$bt" bt-writer)
			local r; r=$(allowed "$reader")
			[ -n "$r" ] && [ "$r" = "$(allowed "$writer")" ] && [ "${r#*[-,]}" = "$r" ]
		}
		wait_for 20 packed
		tm_keys sp$run s
		# the status line at once, before its message goes
		[ $run = 1 ] && check "spread: the status line says which role went where" \
			wait_for 20 sh -c "tmux capture-pane -p -t bt$$-sp1 | grep -qE 'reader bt-read[a-z]*→[0-9]'"
		# (each pass of the loop has processes of its own: looked up again)
		apart_now() { reader=$(pid_of_comm "$bt" bt-reader) writer=$(pid_of_comm "$bt" bt-writer); apart "$reader" "$writer"; }
		wait_for 20 apart_now
		check "spread run $run: reader (CPU $(allowed "$reader")) and writer (CPU $(allowed "$writer")) on CPUs of their own" apart_now
		apart_now || { echo "# reader '$reader' writer '$writer'; descendants: $(for p in $(descendants "$bt"); do printf '%s:%s ' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done)"; tm_screen sp$run | tail -4 | sed 's/^/# /'; }
		tm_keys sp$run q
		tm_kill sp$run
	done
	# rsync under --placement spread: sender (reader) and receiver (writer)
	# end on CPUs of their own once their roles show.
	if command -v rsync >/dev/null; then
		mkdir -p "$T/rs/src" "$T/rs/dst"
		head -c 64M /dev/urandom > "$T/rs/src/big"
		"$BENCHTOP" -b --format json -i 0.2 --placement spread -o "$T/rs.jsonl" -- \
			rsync -a --bwlimit=12000 "$T/rs/src/" "$T/rs/dst/" > /dev/null 2>&1 &
		bpid=$!
		role_pid() { jq -r --arg r "$1" 'select(.type=="sample") | [.procs[] | select(.role==$r and .comm=="rsync") | .pid][0] // empty' "$T/rs.jsonl" 2>/dev/null | tail -1; }
		rs_apart() { local r w; r=$(role_pid reader); w=$(role_pid writer); [ -n "$r" ] && [ -n "$w" ] && apart "$r" "$w"; }
		wait_for 40 rs_apart
		r=$(role_pid reader) w=$(role_pid writer)
		check "rsync spread: sender (CPU $(allowed "$r")) and receiver (CPU $(allowed "$w")) apart" rs_apart
		kill -INT $bpid 2>/dev/null; wait $bpid
	else
		skip "rsync is not installed"
	fi
else
	skip "spread needs 2 CPUs"
fi

# ---- --attach measures what it shows ------------------------------------
# An outside dd, held at a gate until benchtop has attached to it, writes
# a file: workload 1 (kind attached, its command in spec) moves what the
# file holds, in samples, phases, summary and metrics.
attach_dd() {   # attach_dd NAME COUNT: starts the gated dd, prints its pid
	mkfifo "$T/$1.gate"
	sh -c "read x < '$T/$1.gate'; exec dd if=/dev/zero of='$T/$1.out' bs=256k count=$2 oflag=dsync status=none" \
		</dev/null >/dev/null 2>&1 &
	echo $!
}
ddpid=$(attach_dd at 400)
"$BENCHTOP" -b --format json -i 0.2 --attach "$ddpid" -o "$T/at.jsonl" --metrics "$T/at.prom" \
	> "$T/at.txt" 2> "$T/at.err" &
bpid=$!
wait_for 20 sh -c "grep -q '\"type\":\"sample\"' '$T/at.jsonl' 2>/dev/null"
echo go > "$T/at.gate"
# the metrics file goes at the end of the run: read it while dd writes
prom_moves() { grep -qE '^benchtop_workload_bytes(_total)?\{[^}]*workload="1"[^}]*\} [1-9]' "$T/at.prom" 2>/dev/null; }
wait_for 30 prom_moves
check "attach: metrics carry its bytes" prom_moves
wait_for 120 sh -c "! kill -0 $bpid 2>/dev/null"
wait $bpid
rc=$?
size=$(stat -c %s "$T/at.out")
check "attach: exit 0 ($rc), dd wrote $size bytes" sh -c '[ "$1" = 0 ] && [ "$2" = $((400 * 262144)) ]' _ "$rc" "$size"
check "attach: workload 1, kind attached, its command in spec ($(jq -c 'select(.type=="start") | .workloads' "$T/at.jsonl"))" \
	quiet jq -se '(.[] | select(.type=="start")).workloads | length == 1 and .[0].id == 1 and
	.[0].kind == "attached" and (.[0].spec | test("dd if=/dev/zero"))' "$T/at.jsonl"
check "attach: samples carry its write rate" quiet jq -se '
	[.[] | select(.type=="sample") | .workloads[0].write_bps] | max > 0' "$T/at.jsonl"
check "attach: the summary's bytes are what dd wrote, within 1% ($(jq -c 'select(.type=="end") | .summary[0].bytes' "$T/at.jsonl") of $size)" \
	quiet jq -se --argjson n "$size" '(.[] | select(.type=="end")).summary[0].bytes as $b |
	$b > $n * 0.99 and $b <= $n * 1.01' "$T/at.jsonl"
check "attach: the phase has a rate" quiet jq -se '(.[] | select(.type=="end")).phases[0].bps > 0' "$T/at.jsonl"
if [ "$(stat -f -c %T "$T")" != tmpfs ]; then
	disk_named() { quiet jq -se '[.[] | select(.type=="sample") | .disk] | (map(.device) | any(. != "")) and (map(.write_bps) | max > 0)' "$T/at.jsonl"; }
	check "attach: the disk line is the device under dd's file ($(jq -r 'select(.type=="sample") | .disk.device' "$T/at.jsonl" | sort -u | tr '\n' ' '))" disk_named
	disk_named || jq -c 'select(.type=="sample") | {t, disk, procs: [.procs[]? | {pid, comm, bytes, write_bps}]}' "$T/at.jsonl" | sed 's/^/# /' | head -20
else
	skip "attach: $T is on tmpfs, no block device under it"
fi
check "attach: dd left running its course, not killed" sh -c "! grep -q 'killed' '$T/at.err'"

# In the dashboard: the legend's write value moves and the header names it.
ddpid=$(attach_dd atd 4000)
tm_start at 120x40 "'$BENCHTOP' --no-mouse -i 0.5 --attach $ddpid"
wait_for 20 screen_has at "attached"
echo go > "$T/atd.gate"
legend_moves() { tm_screen at | grep -qE '(write|wr) [1-9]'; }
wait_for 30 legend_moves
check "attach dashboard: the legend shows the write rate ($(tm_screen at | grep -oE '(write|wr) [0-9.]+' | head -1))" wait_for 10 legend_moves
tm_keys at q
wait_for 20 sh -c "! tmux has-session -t bt$$-at 2>/dev/null || ! tmux capture-pane -p -t bt$$-at | grep -q Throughput"
check "attach dashboard: dd goes on after q" kill -0 "$ddpid"
kill "$ddpid" 2>/dev/null
tm_kill at

# Reports: every marker label in full, none glued to another (labels on a
# row keep clear of each other at 6 px a character, less than any
# character of 12 px sans-serif but a space).
"$BENCHTOP" -b -i 0.2 -t 4 -o "$T/mk.jsonl" --at 1:marker=alpha --at 1.4:marker=gov-bravo \
	--at 1.8:free --at 2.2:marker=delta --at 2.3:marker=echo-echo --at 2.4:marker=foxtrot -- sleep 10 \
	>/dev/null 2>&1
# ev_labels FILE: "x y anchor text" per marker label of a report
ev_labels() {
	grep -o '<text class="ev"[^>]*><title>[^<]*</title>[^<]*' "$1" |
		sed -E 's/.* x="([0-9.]+)" y="([0-9]+)"( text-anchor="end")?.*<\/title>(.*)/\1 \2 \3 \4/; s/ text-anchor="end" / end /; s/^([0-9.]+ [0-9]+)  /\1 start /'
}
# glued FILE: prints the first pair of labels on one row that touch
glued() {
	ev_labels "$1" | awk '{ x = $1; t = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", t); w = 6 * length(t);
		if ($3 == "end") { a = x - w; b = x } else { a = x; b = x + w }
		for (i = 0; i < n; i++) if (y[i] == $2 && a < B[i] && b > A[i]) { print T[i] " | " t; exit }
		y[n] = $2; A[n] = a; B[n] = b; T[n] = t; n++ }'
}
for out in mk.svg mk.html; do
	"$BENCHTOP" --report "$T/mk.jsonl" -o "$T/$out" >/dev/null 2>&1
	labs=$(ev_labels "$T/$out" | sed -E 's/^[^ ]+ [^ ]+ [^ ]+ //' | tr '\n' ',')
	check "report $out: every marker label in full ($labs)" sh -c "for l in alpha gov-bravo free delta echo-echo foxtrot; do echo '$labs' | grep -qE \"(^|,|s )\$l(,|\$)\" || exit 1; done"
	g=$(glued "$T/$out")
	check "report $out: no two labels glued ($g)" [ -z "$g" ]
done

finish
