#!/bin/sh
# check-formula.sh: the Homebrew formula (packaging/homebrew/kpbrowse.rb),
# checked without Homebrew: `ruby -c`, then the formula is evaluated against
# a small stand-in for Homebrew's Formula DSL that checks its dependencies
# and runs its install block for real (a copy of the tree, built into a
# private prefix, keg paths pointing at empty folders) and its test block,
# and checks that the man page was installed.  Needs ruby; says "skipped"
# when it is absent.  Build folder: build-formula/ (KP_FORMULA_DIR).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
rb=$root/packaging/homebrew/kpbrowse.rb
work=${KP_FORMULA_DIR:-build-formula}
case "$work" in /*) ;; *) work=$root/$work ;; esac
if ! command -v ruby >/dev/null 2>&1; then
	echo "check-formula: skipped: ruby is not installed"
	exit 0
fi
ruby -c "$rb" >/dev/null
rm -rf "$work"
mkdir -p "$work/src" "$work/keg"
# what Homebrew stages: the tree without build folders
tar -C "$root" --exclude='./build' --exclude='./build-*' --exclude='./.git' -cf - . |
	tar -C "$work/src" -xf -
cd "$work/src"
ruby - "$rb" "$work" <<'EOF'
require "pathname"
require "open3"
formula_file, work = ARGV
$deps = {}
# The parts of Homebrew's Formula DSL the formula uses, no more.
class Formula
  class << self
    attr_reader :test_block
    def desc(s) = @desc = s
    def homepage(s) = @homepage = s
    def license(s) = @license = s
    def head(url, **opts) = @head = [url, opts]
    def depends_on(dep) = dep.is_a?(Hash) ? dep.each { |k, v| $deps[k] = v } : $deps[dep] = :run
    def uses_from_macos(dep) = $deps[dep] = :macos
    def test(&blk) = @test_block = blk
    def [](name) = Struct.new(:opt_prefix, :opt_lib).new(Pathname("#{$work}/keg/#{name}"), Pathname("#{$work}/keg/#{name}/lib"))
  end
  def prefix = Pathname("#{$work}/prefix")
  def bin = prefix/"bin"
  def share = prefix/"share"
  def man1 = share/"man/man1"
  def std_cmake_args = ["-DCMAKE_INSTALL_PREFIX=#{prefix}", "-DCMAKE_BUILD_TYPE=Release"]
  def system(*cmd)
    out, st = Open3.capture2e(*cmd)
    raise "#{cmd.join(" ")} failed:\n#{out}" unless st.success?
  end
  def shell_output(cmd)
    out, st = Open3.capture2(cmd)
    raise "#{cmd}: exit #{st.exitstatus}" unless st.success?
    out
  end
  def assert_match(want, got) = (raise "#{got.inspect} does not match #{want.inspect}" unless got.match?(want))
  def assert_predicate(obj, pred) = (raise "#{obj} is not #{pred}" unless obj.public_send(pred))
end
def ENV.prepend_path(key, value) = self[key] = [value.to_s, self[key]].compact.join(":")
$work = work
load formula_file
f = Kpbrowse.new
want = { "cmake" => :build, "pkg-config" => :build, "capstone" => :run, "cjson" => :run, "libdwarf" => :run,
         "libplist" => :run, "zstd" => :run,
         "ncurses" => :run, "sqlite" => :run, "curl" => :macos }
want.each { |d, kind| raise "depends_on #{d} (#{kind}) missing: #{$deps}" unless $deps[d] == kind }
f.install
raise "man page not installed" unless (f.man1/"kpbrowse.1").file?
f.instance_eval(&Kpbrowse.test_block)
puts "check-formula: install and test blocks pass; #{f.bin}/kpbrowse and #{f.man1}/kpbrowse.1 installed"
EOF
