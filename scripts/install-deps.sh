#!/bin/sh
# install-deps.sh: installs what kpbrowse needs to build and test.
# Debian/Ubuntu: apt-get; macOS: Homebrew.  Idempotent: it installs only what
# is missing and says what it installs.
set -eu

apt_pkgs="build-essential cmake pkg-config libncurses-dev libcjson-dev libdwarf-dev \
libsqlite3-dev zlib1g-dev libzstd-dev libcapstone-dev libplist-dev libcurl4-openssl-dev clang lld llvm clang-19 lld-19 llvm-19 libc++abi1-19 tmux python3 valgrind mandoc ruby nodejs postgresql libpq-dev"
brew_pkgs="cmake pkg-config ncurses cjson libdwarf libplist sqlite zlib zstd capstone llvm tmux mandoc libpq postgresql@16"

case "$(uname -s)" in
Linux)
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "install-deps: no apt-get here; install by hand: $apt_pkgs" >&2
		exit 1
	fi
	missing=""
	for p in $apt_pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	# npm (scripts/check-macos.sh fetches zig with it) is Debian's own package,
	# or comes inside NodeSource's nodejs, which conflicts with Debian's npm
	command -v npm >/dev/null 2>&1 || missing="$missing npm"
	if [ -z "$missing" ]; then
		echo "install-deps: all packages present"
		exit 0
	fi
	echo "install-deps: installing:$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
	echo "install-deps: done"
	;;
Darwin)
	if ! command -v brew >/dev/null 2>&1; then
		echo "install-deps: Homebrew is needed (https://brew.sh)" >&2
		exit 1
	fi
	missing=""
	for p in $brew_pkgs; do
		brew list --versions "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		echo "install-deps: all packages present"
		exit 0
	fi
	echo "install-deps: installing:$missing"
	# shellcheck disable=SC2086
	brew install $missing
	;;
*)
	echo "install-deps: unsupported system $(uname -s)" >&2
	exit 1
	;;
esac
