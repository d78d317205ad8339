#!/usr/bin/env bash
set -e
# The expected values of NvmeTlsKeyTest, computed with OpenSSL 3.0's command line (an implementation
# independent of jdoca's): HKDF with the RFC 8446 HkdfLabel written out as hexinfo, HMAC for the TP 8018 digest.
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
HOST=nqn.2014-08.org.nvmexpress:uuid:host1
SUB=nqn.2016-06.io.spdk:cnode1
hex() { printf %s "$1" | xxd -p | tr -d '\n'; }
len1() { printf %02x ${#1}; }
L="tls13 HostNQN"
INFO=0020$(len1 "$L")$(hex "$L")$(len1 "$HOST")$(hex "$HOST")
RET=$(openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt hexkey:$KEY -kdfopt hexinfo:$INFO HKDF | tr -d ':' | tr A-F a-f)
echo "retained=$RET"
ID="NVMe0R01 $HOST $SUB"
L2="tls13 nvme-tls-psk"
INFO2=0020$(len1 "$L2")$(hex "$L2")$(len1 "$ID")$(hex "$ID")
echo "tlspsk_v0=$(openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt hexkey:$RET -kdfopt hexinfo:$INFO2 HKDF | tr -d ':' | tr A-F a-f)"
DIG=$(printf %s "$HOST $SUB NVMe-over-Fabrics" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$RET -binary | base64 -w0)
echo "digest=$DIG"
CTX="01 $DIG"
INFO3=0020$(len1 "$L2")$(hex "$L2")$(len1 "$CTX")$(hex "$CTX")
echo "tlspsk_v1=$(openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt hexkey:$RET -kdfopt hexinfo:$INFO3 HKDF | tr -d ':' | tr A-F a-f)"
# HH=00 48-byte key, SHA-384 identity v0
K48=$(for i in $(seq 0 47); do printf %02x $((i+0x40)); done)
ID2="NVMe0R02 $HOST $SUB"
INFO4=0030$(len1 "$L2")$(hex "$L2")$(len1 "$ID2")$(hex "$ID2")
echo "tlspsk48_v0=$(openssl kdf -keylen 48 -kdfopt digest:SHA384 -kdfopt hexkey:$K48 -kdfopt hexinfo:$INFO4 HKDF | tr -d ':' | tr A-F a-f)"
echo k48=$K48
