#!/bin/sh
# Print the ABI name of the kernel the guest boots (e.g. 6.1.0-57-amd64):
# the version Debian's linux-image-amd64 meta package depends on, else the
# newest installed linux-headers-*-amd64. Override with KVER=... .
if [ -n "$KVER" ]; then echo "$KVER"; exit 0; fi
v=$(apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | grep -v unsigned | head -1)
if [ -z "$v" ]; then
	v=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
	v=${v#/usr/src/linux-headers-}
fi
echo "$v"
