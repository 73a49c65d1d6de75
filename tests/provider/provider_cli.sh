#!/bin/sh
# The openssl command line with the aesgen provider: it lists the ciphers, and
# `openssl enc` through aesgen and through the default provider decrypt each other.
# A third leg goes through an openssl.cnf activating default and aesgen with
# default_properties = ?provider=aesgen (the snippet of docs/openssl-provider.md).
#   provider_cli.sh <openssl> <module-dir> <scratch-dir>
set -eu
openssl=$1 dir=$2 tmp=$3
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

list=$("$openssl" list -cipher-algorithms -provider-path "$dir" -provider aesgen)
for c in aes-128-ecb aes-192-ecb aes-256-ecb aes-128-cbc aes-192-cbc aes-256-cbc aes-128-ctr aes-192-ctr aes-256-ctr \
         aes-128-xts aes-256-xts aes-128-gcm aes-192-gcm aes-256-gcm; do
    echo "$list" | grep -i -- "$c" | grep -q '@ aesgen' || fail "$c is not listed from aesgen:
$list"
done
# XTS under the OIDs the default provider gives them (arc 1.3.111.2.1619: IEEE 1619).
echo "$list" | grep '@ aesgen' | grep -q '1.3.111.2.1619.0.1.1, AES-128-XTS' || fail "AES-128-XTS OID missing:
$list"
echo "$list" | grep '@ aesgen' | grep -q '1.3.111.2.1619.0.1.2, AES-256-XTS' || fail "AES-256-XTS OID missing:
$list"
# GCM under its OIDs and id-aes*-GCM aliases (openssl enc refuses AEAD ciphers, so only listed here).
for g in "2.16.840.1.101.3.4.1.6, AES-128-GCM, id-aes128-GCM" "2.16.840.1.101.3.4.1.26, AES-192-GCM, id-aes192-GCM" \
         "2.16.840.1.101.3.4.1.46, AES-256-GCM, id-aes256-GCM"; do
    echo "$list" | grep '@ aesgen' | grep -qi -- "$g" || fail "GCM names missing ($g):
$list"
done
echo "listed: 14 ciphers @ aesgen"

# 1000 bytes: not a multiple of the block size, so the padding is exercised.
head -c 1000 /dev/urandom >"$tmp/pt"
K=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
IV=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
aesgen="-provider-path $dir -provider aesgen -provider default -propquery provider=aesgen"
default="-provider default -propquery provider=default"
for c in aes-128-cbc aes-256-cbc aes-128-ctr aes-128-ecb; do
    k=$K
    case $c in aes-128-*) k=$(echo "$K" | cut -c1-32) ;; esac
    iv="-iv $IV"
    [ "$c" = aes-128-ecb ] && iv=""
    # shellcheck disable=SC2086
    "$openssl" enc -$c -e -K "$k" $iv -nosalt $default -in "$tmp/pt" -out "$tmp/ct.default"
    # shellcheck disable=SC2086
    "$openssl" enc -$c -e -K "$k" $iv -nosalt $aesgen -in "$tmp/pt" -out "$tmp/ct.aesgen"
    cmp -s "$tmp/ct.default" "$tmp/ct.aesgen" || fail "$c: ciphertexts differ"
    # shellcheck disable=SC2086
    "$openssl" enc -$c -d -K "$k" $iv -nosalt $aesgen -in "$tmp/ct.default" -out "$tmp/pt.aesgen"
    # shellcheck disable=SC2086
    "$openssl" enc -$c -d -K "$k" $iv -nosalt $default -in "$tmp/ct.aesgen" -out "$tmp/pt.default"
    cmp -s "$tmp/pt" "$tmp/pt.aesgen" || fail "$c: aesgen does not decrypt the default provider's ciphertext"
    cmp -s "$tmp/pt" "$tmp/pt.default" || fail "$c: the default provider does not decrypt aesgen's ciphertext"
    cp "$tmp/ct.default" "$tmp/ct.$c"
    echo "enc: $c both ways"
done
# A wrong key: the padding check fails through aesgen, with its reason.
if "$openssl" enc -aes-128-cbc -d -K 00000000000000000000000000000000 -iv "$IV" -nosalt $aesgen \
      -in "$tmp/ct.aes-128-cbc" -out "$tmp/bad" 2>"$tmp/err"; then
    fail "aes-128-cbc: decryption with a wrong key succeeded"
fi
grep -q "aesgen: bad decrypt" "$tmp/err" || fail "no aesgen bad decrypt reason: $(cat "$tmp/err")"
echo "enc: wrong key refused (bad decrypt)"

# The openssl.cnf of docs/openssl-provider.md: both providers active, aesgen preferred.
cat >"$tmp/aesgen.cnf" <<CNF
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect

[provider_sect]
default = default_sect
aesgen = aesgen_sect

[default_sect]
activate = 1

[aesgen_sect]
module = $(cd "$dir" && pwd)/aesgen.so
activate = 1

[algorithm_sect]
default_properties = ?provider=aesgen
CNF
providers=$(OPENSSL_CONF="$tmp/aesgen.cnf" "$openssl" list -providers)
echo "$providers" | grep -A3 '^  aesgen' | grep -q 'status: active' || fail "openssl.cnf: aesgen not active:
$providers"
k=$(echo "$K" | cut -c1-32)
OPENSSL_CONF="$tmp/aesgen.cnf" "$openssl" enc -aes-128-cbc -d -K "$k" -iv "$IV" -nosalt \
    -in "$tmp/ct.aes-128-cbc" -out "$tmp/pt.cnf" 2>"$tmp/err" || fail "openssl.cnf: decrypt failed: $(cat "$tmp/err")"
cmp -s "$tmp/pt" "$tmp/pt.cnf" || fail "openssl.cnf: aes-128-cbc decryption differs"
# ...and aesgen served it: a wrong key fails with aesgen's reason.
if OPENSSL_CONF="$tmp/aesgen.cnf" "$openssl" enc -aes-128-cbc -d -K 00000000000000000000000000000000 -iv "$IV" \
      -nosalt -in "$tmp/ct.aes-128-cbc" -out "$tmp/bad" 2>"$tmp/err"; then
    fail "openssl.cnf: decryption with a wrong key succeeded"
fi
grep -q "aesgen: bad decrypt" "$tmp/err" || fail "openssl.cnf: aesgen did not serve aes-128-cbc: $(cat "$tmp/err")"
echo "openssl.cnf: aesgen active and preferred"

# TLS over 127.0.0.1 with AES-GCM suites: a server on the openssl.cnf above (aesgen
# preferred) and a client on the default provider alone, then the other way round;
# TLS 1.2 (aesgen's record mode: tlsivfixed, tlsaad, explicit nonces) and TLS 1.3.
# The payload must come back reversed (s_server -rev).
"$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/tls.key" \
    -out "$tmp/tls.crt" -subj /CN=localhost -days 2 >/dev/null 2>&1 || fail "cannot make a test certificate"
tls_once() { # tls_once <server-conf> <client-conf> <protocol and suite options...>
    sconf=$1 cconf=$2
    shift 2
    for _ in 1 2 3; do # three tries: a random port may be taken
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
        OPENSSL_CONF=$sconf timeout 60 "$openssl" s_server -accept "127.0.0.1:$port" -cert "$tmp/tls.crt" -key "$tmp/tls.key" \
            "$@" -naccept 1 -rev >"$tmp/srv.log" 2>&1 &
        spid=$!
        i=0
        while [ $i -lt 50 ] && ! grep -q ACCEPT "$tmp/srv.log" && kill -0 $spid 2>/dev/null; do
            sleep 0.1
            i=$((i + 1))
        done
        if grep -q ACCEPT "$tmp/srv.log"; then
            : >"$tmp/cli.out"
            # stdin stays open until the echo is back (at most 30 s: a loaded host is slow),
            # then closes, which ends the client and the server's one connection
            (echo hello-aesgen; j=0
             while [ $j -lt 300 ] && ! grep -q negsea-olleh "$tmp/cli.out"; do sleep 0.1; j=$((j + 1)); done) |
                OPENSSL_CONF=$cconf timeout 60 "$openssl" s_client -connect "127.0.0.1:$port" "$@" \
                -quiet -no_ign_eof >"$tmp/cli.out" 2>"$tmp/cli.err" || true
            # (their exit codes vary with who closes first: the echo decides; timeout ends
            # either if the other never does)
            wait $spid 2>/dev/null || true
            grep -q negsea-olleh "$tmp/cli.out" || fail "TLS $*: no echo: $(cat "$tmp/cli.err" "$tmp/srv.log")"
            return 0
        fi
        kill $spid 2>/dev/null || true
        wait $spid 2>/dev/null || true
    done
    fail "TLS $*: the server did not start: $(cat "$tmp/srv.log")"
}
: >"$tmp/empty.cnf" # the default provider alone
for suite in "-tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256" "-tls1_2 -cipher ECDHE-ECDSA-AES256-GCM-SHA384" \
             "-tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256" "-tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384"; do
    # shellcheck disable=SC2086
    tls_once "$tmp/aesgen.cnf" "$tmp/empty.cnf" $suite
    # shellcheck disable=SC2086
    tls_once "$tmp/empty.cnf" "$tmp/aesgen.cnf" $suite
    echo "tls: $suite, aesgen server with default client and the reverse"
done
