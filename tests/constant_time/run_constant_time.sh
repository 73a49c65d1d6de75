#!/bin/sh
# run_constant_time.sh -- CTest driver for the constant-time test (POSIX sh).
#
#   run_constant_time.sh skip REASON
#       print "skipped: REASON" and exit 77 (CTest SKIP_RETURN_CODE).
#   run_constant_time.sh clean VALGRIND [VALGRIND-OPTIONS...] -- PROGRAM [ARGS...]
#       pass only if valgrind exits 0: no memcheck error and the program's
#       own checks passed.
#   run_constant_time.sh leak VALGRIND [VALGRIND-OPTIONS...] -- PROGRAM [ARGS...]
#       pass only if valgrind exits with 99 (its --error-exitcode, i.e.
#       memcheck reported errors) AND the program confirmed that both planted
#       leaks were reported. A crash or any other exit status is a failure,
#       so an unrelated problem cannot pass as "leak caught".
#
# VALGRIND-OPTIONS must include --error-exitcode=99.

mode=$1
[ $# -ge 1 ] && shift

if [ "$mode" = skip ]; then
    echo "skipped: $*"
    exit 77
fi
if [ "$mode" != clean ] && [ "$mode" != leak ]; then
    echo "run_constant_time.sh: unknown mode '$mode'" >&2
    exit 2
fi

valgrind=$1
[ $# -ge 1 ] && shift
if [ -z "$valgrind" ] || ! command -v "$valgrind" >/dev/null 2>&1; then
    echo "skipped: install valgrind ('$valgrind' not found)"
    exit 77
fi

case " $* " in
    *" -- "*) ;;
    *) echo "run_constant_time.sh: missing '--' before the program" >&2; exit 2 ;;
esac

# Rebuild "$@" as: VALGRIND-OPTIONS PROGRAM ARGS (dropping the "--").
n=$#
i=0
seen=0
while [ $i -lt $n ]; do
    a=$1
    shift
    i=$((i + 1))
    if [ $seen -eq 0 ] && [ "$a" = "--" ]; then
        seen=1
        continue
    fi
    set -- "$@" "$a"
done

out=$("$valgrind" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"

case $out in
    *"debuginfo reader"*"Giving up"*)
        echo "run_constant_time.sh: valgrind could not read the debug info. With clang >= 14 and" \
             "valgrind < 3.20 (DWARF 5) build with -gdwarf-4 or -fdebug-default-version=4."
        ;;
esac

if [ "$mode" = clean ]; then
    case $rc in
        0)  echo "run_constant_time.sh: PASS: memcheck saw no secret-dependent branch or address"
            exit 0 ;;
        99) echo "run_constant_time.sh: FAIL: memcheck reported errors (see the valgrind output above:" \
                 "'Conditional jump or move depends on uninitialised value(s)' = secret-dependent" \
                 "branch, 'Use of uninitialised value of size N' = secret-dependent address)"
            exit 1 ;;
        *)  echo "run_constant_time.sh: FAIL: exit status $rc (1 = wrong output or library error," \
                 "3 = not under memcheck, >128 = killed by a signal)"
            exit 1 ;;
    esac
fi

# leak mode
if [ $rc -ne 99 ]; then
    echo "run_constant_time.sh: FAIL: expected valgrind exit status 99 (memcheck errors reported)," \
         "got $rc: the planted leak was not caught (or the run failed for another reason)"
    exit 1
fi
case $out in
    *"LEAKS REPORTED by memcheck (table load and branch)"*)
        echo "run_constant_time.sh: PASS: memcheck caught the planted leaks (exit 99)"
        exit 0 ;;
esac
echo "run_constant_time.sh: FAIL: exit status 99, but the program did not confirm that both" \
     "planted leaks (table load, branch) were reported"
exit 1
