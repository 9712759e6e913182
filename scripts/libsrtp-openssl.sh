#!/bin/sh
# Builds Debian's own libsrtp2 source with OpenSSL's crypto instead of NSS's, for Janus.
#
# Why: Debian builds libsrtp2 with --enable-nss, and SRTP through NSS's PKCS#11 layer is about a
# third of Janus's CPU when it forwards to viewers (docs/decisions.md, "Janus as a second media
# engine"). Janus's README installs libsrtp with --enable-openssl. Same source (hash as in Debian's
# .dsc), Debian's compiler flags, one switch changed; Debian's patches touch only libsrtp's tests.
#
# Usage: scripts/libsrtp-openssl.sh [PREFIX]     (default PREFIX: .cache/libsrtp-openssl)
# Then either install it system-wide (sudo cp PREFIX/lib/libsrtp2.so.1 /usr/local/lib && sudo
# ldconfig: /usr/local/lib comes before Debian's copy), or give Janus only this copy with
# MEDIA_JANUS_LIBRARY_PATH=PREFIX/lib. Needs build-essential and libssl-dev.
set -eu

prefix=$(realpath -m "${1:-.cache/libsrtp-openssl}")
version=2.5.0
sha256=8a43ef8e9ae2b665292591af62aa1a4ae41e468b6d98d8258f91478735da4e09
url="http://deb.debian.org/debian/pool/main/libs/libsrtp2/libsrtp2_${version}.orig.tar.gz"

if [ -f "$prefix/lib/libsrtp2.so.1" ]; then
  echo "$prefix/lib/libsrtp2.so.1 is already built"
  exit 0
fi
installed=$(dpkg-query -W -f='${Version}' libsrtp2-1 2>/dev/null || true)
case "$installed" in
  "$version"-*) ;;
  *) echo "note: Debian's libsrtp2-1 here is '${installed:-not installed}', this builds $version" >&2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL "$url" -o "$work/src.tar.gz"
echo "$sha256  $work/src.tar.gz" | sha256sum -c --quiet
tar -xzf "$work/src.tar.gz" -C "$work"
cd "$work/libsrtp-$version"
# Debian's compiler flags (debian/rules), with --enable-openssl where Debian has --enable-nss.
CFLAGS="-O3 -funroll-loops -D_REENTRANT" ./configure --prefix="$prefix" \
  --enable-openssl >/dev/null
make -j"$(nproc)" shared_library >/dev/null
make install >/dev/null
echo "built $prefix/lib/libsrtp2.so.1 (OpenSSL crypto)"
