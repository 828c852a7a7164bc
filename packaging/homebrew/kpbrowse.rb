# Homebrew formula for kpbrowse, built from the repository's HEAD (there is
# no release yet).  README "macOS" says how to install it from a local tap:
#   brew install --HEAD <tap>/kpbrowse
# CI checks its syntax with `ruby -c`.
class Kpbrowse < Formula
  desc "Terminal browser for macOS kernel panic reports"
  homepage "https://github.com/kpbrowse/kpbrowse"
  # Where the repository is published; change both URLs if it moves.
  head "https://github.com/kpbrowse/kpbrowse.git", branch: "main"

  depends_on "cmake" => :build
  depends_on "pkg-config" => :build
  depends_on "capstone"   # disassembly (show --disasm, the TUI's d)
  depends_on "cjson"
  depends_on "libdwarf"
  depends_on "libplist"   # dsymForUUID answers, DebugSymbols defaults
  depends_on "ncurses"
  depends_on "sqlite"
  depends_on "zstd"       # index archives (zlib reads those written before)

  uses_from_macos "curl"   # symbol servers over HTTP(S); loaded when one is asked
  uses_from_macos "zlib"

  def install
    # ncurses and sqlite are keg-only: without these pkg-config would find
    # the macOS SDK's (ncurses 5.7) before Homebrew's.
    kegs = %w[ncurses sqlite].map { |f| Formula[f].opt_prefix }
    kegs.each { |k| ENV.prepend_path "PKG_CONFIG_PATH", k/"lib/pkgconfig" }
    system "cmake", "-S", ".", "-B", "build", "-DBUILD_TESTING=OFF", "-DKP_CAPSTONE=ON",
           "-DCMAKE_PREFIX_PATH=#{kegs.join(";")}", *std_cmake_args
    system "cmake", "--build", "build"
    # installs bin/kpbrowse, share/man/man1/kpbrowse.1 and --demo's
    # share/kpbrowse/demo (reports, dSYMs, sources)
    system "cmake", "--install", "build"
  end

  test do
    assert_match(/^kpbrowse \d+\.\d+/, shell_output("#{bin}/kpbrowse --version"))
    assert_match "kpbrowse show", shell_output("#{bin}/kpbrowse --help")
    assert_predicate share/"kpbrowse/demo/reports", :directory?
  end
end
