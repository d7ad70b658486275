#!/usr/bin/env bash
# test_cli.sh - self-test of the `grundy` command-line oracle.
#
# Usage: tests/staff/selftest/test_cli.sh path/to/grundy
#
# The shell tests and fixture scripts lean on `grundy` for expected answers,
# so its output is checked here against the published data in tests/staff/data
# (or $GRUNDY_DATA_DIR), against itself (outcome vs. nim values, search vs.
# XOR rule), and its error handling is checked. Ends with "N passed, M
# failed"; exits non-zero if anything failed.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 path/to/grundy" >&2
    exit 2
fi
BIN=$1
if [[ ! -x $BIN ]]; then
    echo "$0: '$BIN' is not an executable file" >&2
    exit 2
fi

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=${GRUNDY_DATA_DIR:-$script_dir/../data}
OEIS=$DATA/a002188_oeis.txt
SPARSE=$DATA/grundy_sparse_flammenkamp.txt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*" >&2
}

# The published summary of g(n) for n < 2^21 (tests/staff/data, octal-games):
# the largest value and the first height where it occurs, far beyond the
# range the term lists cover.
summary_checks() {
    local summary=$DATA/octal_games_grundy_2p21.txt limit want got
    limit=$(awk '$1 == "limit" {print $2}' "$summary")
    want="$(awk '$1 == "largest" {print $2}' "$summary") $(awk '$1 == "largest_at" {print $2}' "$summary")"
    got=$("$BIN" nim $((limit - 1)) | awk 'BEGIN {m = -1} $2 > m {m = $2; at = $1} END {print m, at}')
    check "grundy nim $((limit - 1)): largest value and where (octal-games)" "$want" "$got"
}

# check NAME EXPECTED ACTUAL
check() {
    if [[ $2 == "$3" ]]; then
        pass
    else
        fail "$1: expected '$2', got '$3'"
    fi
}

# run_ok OUTFILE ARGS...: runs grundy, expecting exit 0.
run_ok() {
    local out=$1
    shift
    local rc=0
    "$BIN" "$@" >"$out" 2>"$tmp/stderr" || rc=$?
    if [[ $rc -ne 0 ]]; then
        fail "grundy $*: expected exit 0, got $rc; stderr: $(head -c 300 "$tmp/stderr")"
        return 1
    fi
    return 0
}

for f in "$OEIS" "$SPARSE"; do
    if [[ ! -r $f ]]; then
        echo "$0: data file '$f' is missing (set GRUNDY_DATA_DIR)" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done

# ---- nim N against OEIS A002188, byte for byte ----
if run_ok "$tmp/nim104" nim 104; then
    if grep -v '^#' "$OEIS" | cmp -s - "$tmp/nim104"; then
        pass
    else
        fail "grundy nim 104 differs from $OEIS (comments stripped):"
        diff <(grep -v '^#' "$OEIS") "$tmp/nim104" | head -5 >&2 || true
    fi
fi

# ---- nim 20000: shape, and sparse classes against Flammenkamp ----
declare -a G=()
if run_ok "$tmp/nim20000" nim 20000; then
    check "grundy nim 20000: line count" 20001 "$(wc -l <"$tmp/nim20000" | tr -d ' ')"
    # column 1 must be exactly 0..20000 in order
    bad=$(awk '$1 != NR - 1 || NF != 2 { print NR": "$0; exit }' "$tmp/nim20000")
    check "grundy nim 20000: every line is 'n g(n)' with n = line-1" "" "$bad"
    check "grundy nim 20000: first 105 lines equal nim 104" \
        "$(cat "$tmp/nim104")" "$(head -n 105 "$tmp/nim20000")"

    bound=$(sed -n 's/^# complete-up-to: *\([0-9][0-9]*\).*/\1/p' "$SPARSE")
    if [[ -z $bound ]]; then
        fail "$SPARSE has no '# complete-up-to: N' line"
    else
        ((bound > 20000)) && bound=20000
        # For n <= bound: n is listed iff popcount(g(n) & ~1) is even, and
        # listed values equal g(n). Prints one line per disagreement.
        mismatches=$(awk -v bound="$bound" '
            function sparse(g,   v, bits) {
                v = int(g / 2); bits = 0
                while (v > 0) { bits += v % 2; v = int(v / 2) }
                return bits % 2 == 0
            }
            FNR == NR { if ($0 !~ /^#/ && NF == 2) listed[$1] = $2; next }
            $1 <= bound {
                s = sparse($2)
                if (($1 in listed) && listed[$1] != $2)
                    print "G(" $1 "): Flammenkamp " listed[$1] ", grundy " $2
                else if (s && !($1 in listed))
                    print "G(" $1 ") = " $2 " is sparse but not listed"
                else if (!s && ($1 in listed))
                    print "G(" $1 ") = " $2 " is common but listed"
            }' "$SPARSE" "$tmp/nim20000")
        check "grundy nim 20000 vs $SPARSE (n <= $bound)" "" "$mismatches"
    fi
    # g values for the outcome checks below
    mapfile -t G < <(awk '{ print $2 }' "$tmp/nim20000")
fi

# ---- outcome: XOR rule computed here from `grundy nim` ----
xor_outcome() {
    local x=0 h
    for h in "$@"; do
        x=$((x ^ G[h]))
    done
    if ((x == 0)); then echo P; else echo N; fi
}

positions=(
    "7"
    "3"
    "3 3"
    "4 5 6"
    "5 11 4"
    "13 19 2"
    "18 8 6"
    "1 2 1 2"
    "100 200 300"
    "87 90"
    "19999 20000 1234"
    "231 10 10"
)
if ((${#G[@]} == 20001)); then
    for p in "${positions[@]}"; do
        # shellcheck disable=SC2086
        want=$(xor_outcome $p)
        # shellcheck disable=SC2086
        if run_ok "$tmp/out" outcome $p; then
            check "grundy outcome $p" "$want" "$(cat "$tmp/out")"
        fi
        # shellcheck disable=SC2086
        if run_ok "$tmp/out" outcome --method=nim $p; then
            check "grundy outcome --method=nim $p" "$want" "$(cat "$tmp/out")"
        fi
    done
    # make sure both answers occur among the checked positions
    seen=""
    for p in "${positions[@]}"; do
        # shellcheck disable=SC2086
        seen+=$(xor_outcome $p)
    done
    if [[ $seen == *P* && $seen == *N* ]]; then
        pass
    else
        fail "outcome positions should include both P and N, got $seen"
    fi
else
    fail "no nim values available, outcome checks skipped"
fi

# ---- outcome --method=search agrees with the XOR rule ----
search_positions=("7" "3 3" "4 5 6" "5 11 4" "13 19" "20 20 7" "25 9 3 3" "40" "50" "12 14 16 18")
for p in "${search_positions[@]}"; do
    # shellcheck disable=SC2086
    if run_ok "$tmp/s" outcome --method=search $p && run_ok "$tmp/n" outcome $p; then
        check "grundy outcome --method=search $p vs nim" "$(cat "$tmp/n")" "$(cat "$tmp/s")"
    fi
done
# the option may also come after the heaps
if run_ok "$tmp/s" outcome 4 5 6 --method=search; then
    check "grundy outcome 4 5 6 --method=search" "$(xor_outcome 4 5 6)" "$(cat "$tmp/s")"
fi

# ---- moves ----
if run_ok "$tmp/m" moves 7; then
    check "grundy moves 7" $'{3=1, 4=1}\n{5=1}\n{6=1}' "$(cat "$tmp/m")"
fi
if run_ok "$tmp/m" moves 3; then
    check "grundy moves 3" "{}" "$(cat "$tmp/m")"
fi
if run_ok "$tmp/m" moves 1 2; then
    check "grundy moves 1 2 (no moves)" "" "$(cat "$tmp/m")"
fi
if run_ok "$tmp/m" moves 6 5; then
    check "grundy moves 6 5" $'{3=1, 6=1}\n{4=1, 5=1}\n{4=1, 6=1}\n{5=2}' "$(cat "$tmp/m")"
fi
if run_ok "$tmp/m" moves 4 4; then
    check "grundy moves 4 4" "{3=1, 4=1}" "$(cat "$tmp/m")"
fi

# ---- play: a whole game is tests/staff/selftest/test_play.py; here, input ends ----
if run_ok "$tmp/p" play 7 </dev/null; then
    check "grundy play 7 with no input: ends the game" "1" "$(grep -c 'End of input: the game is abandoned' "$tmp/p")"
fi

# ---- help ----
rc=0
"$BIN" --help >"$tmp/help" 2>"$tmp/stderr" || rc=$?
check "grundy --help: exit status" 0 "$rc"
if grep -q usage "$tmp/help"; then
    pass
else
    fail "grundy --help: expected usage text on stdout, got '$(head -c 200 "$tmp/help")'"
fi

# ---- bad arguments: exit 2, message on stderr, nothing on stdout ----
bad_args=(
    ""
    "nim"
    "nim x"
    "nim -1"
    "nim 99999999999999999999"
    "nim 5x"
    "nim 1 2"
    "outcome"
    "outcome 3 x"
    "outcome -3"
    "outcome --method=bogus 3"
    "outcome --method=search 60 60"
    "moves"
    "moves 4 y"
    "play"
    "play --solver-first"
    "play 1001"
    "play 10 z"
    "frobnicate"
)
summary_checks

for a in "${bad_args[@]}"; do
    rc=0
    # shellcheck disable=SC2086
    "$BIN" $a >"$tmp/bad_out" 2>"$tmp/bad_err" || rc=$?
    check "grundy $a: exit status" 2 "$rc"
    if [[ -s $tmp/bad_err ]]; then pass; else fail "grundy $a: expected a message on stderr"; fi
    if [[ -s $tmp/bad_out ]]; then fail "grundy $a: expected nothing on stdout"; else pass; fi
done

echo "$passed passed, $failed failed"
if ((failed > 0)); then
    exit 1
fi
exit 0
