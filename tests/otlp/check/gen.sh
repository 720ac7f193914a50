#!/bin/sh
# Encodes every NAME.txtpb here into NAME.otlp with the kept schema (../proto), and writes
# O10-decode.otlp: clean.otlp cut short by one byte. Run after editing a .txtpb.
set -eu
cd "$(dirname "$0")"
for t in *.txtpb ../in/*.txtpb; do
    protoc -I ../proto --encode=opentelemetry.proto.profiles.v1development.ProfilesData \
        opentelemetry/proto/profiles/v1development/profiles.proto < "$t" > "${t%.txtpb}.otlp"
done
n=$(wc -c < clean.otlp)
head -c $((n - 1)) clean.otlp > O10-decode.otlp
