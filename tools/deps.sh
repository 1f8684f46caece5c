#!/bin/sh
# Install the Debian packages sandprobe builds and tests with (Debian 12, as
# root). Does nothing when everything is already installed.
set -eu
PKGS="make gcc clang libc6-dev pkg-config libjansson-dev libinih-dev libyaml-dev libssl-dev libmbedtls-dev libseccomp-dev libnghttp2-dev
 bubblewrap runc crun podman firejail systemd-container busybox-static uidmap
 qemu-system-x86 linux-image-amd64 cpio squid tinyproxy dante-server iproute2 iputils-ping netcat-openbsd curl
 docker.io runsc containerd nftables mitmproxy
 dpkg-dev debhelper lintian git zsh fish python3-jsonschema python3-yaml python3-pip python3-venv yq jq libxml2-utils openssl perl bc file util-linux clang-format procps strace python3 time chromium prometheus
 docker-registry skopeo"
# the arm64 doctor (make doctor-arm64) and its test under qemu-user: Debian's
# cross toolchain and the arm64 multiarch -dev packages of what the doctor links
# (libc6-dev:arm64 for the arm64 package's Built-Using, tests/pkg/deb_arm64.t)
CROSS_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static libc6-dev:arm64 libjansson-dev:arm64 libinih-dev:arm64 libmbedtls-dev:arm64"
PKGS="$PKGS $CROSS_PKGS"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# npm (the SARIF multitool test installs Microsoft's validator with it): a
# machine whose Node.js comes from elsewhere (NodeSource's nodejs carries npm
# and conflicts with Debian's npm package) already has it
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "tools/deps.sh: missing Debian packages:$missing (run as root to install them)" >&2
	exit 2
fi
echo "tools/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
case "$missing" in
*:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
esac
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
