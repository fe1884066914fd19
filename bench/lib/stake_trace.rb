# frozen_string_literal: true

# Records what a Ruby test suite (test-unit or minitest) really runs, for bench/stake.mjs: loaded with
# `ruby -I bench/lib -r stake_trace`. While a test method runs, a TracePoint on :call/:return keeps a
# stack per thread and records the calls whose callee is defined in the project (a file under
# STAKE_ROOT, outside vendor/ and gems): the dynamic call edges (caller = the frame below the callee on
# the stack, when it is project code) and, per test method, the project methods it executed. A block
# (:b_call/:b_return) is a frame of the method that defines it, as stake_trace.py counts a lambda: what a
# block calls, its method calls, whoever yields to it. Writes the same JSON as stake_trace.py to STAKE_OUT
# when the process exits.
require "json"

module StakeTrace
  ROOT = File.realpath(ENV.fetch("STAKE_ROOT", Dir.pwd))
  OUT = ENV.fetch("STAKE_OUT", "stake-trace.json")
  SKIP = %r{/(vendor|gems|\.bundle)/}

  @functions = []
  @index = {}
  @edges = {}
  @executed = Hash.new { |h, k| h[k] = {} }
  @tests = []
  @test_by_fn = {}
  @current = nil
  @paths = {}
  @by_name = Hash.new { |h, k| h[k] = [] }

  class << self
    attr_accessor :current

    def project_path(file)
      @paths.fetch(file) do
        real = File.exist?(file) ? File.realpath(file) : nil
        rel = real && real.start_with?("#{ROOT}/") && real !~ SKIP ? real.delete_prefix("#{ROOT}/") : nil
        @paths[file] = rel
      end
    end

    def class_name(cls)
      text = cls.name || cls.inspect
      text = text.delete_prefix("#<Class:").delete_suffix(">") if cls.singleton_class?
      text.gsub("::", ".")
    end

    def fn(path, cls, name, line)
      key = [path, line, name]
      @index.fetch(key) do
        @functions << [path, "#{class_name(cls)}.#{name}", line, false]
        @by_name[[path, name]] << [line, @functions.size - 1]
        @index[key] = @functions.size - 1
      end
    end

    def on_call(tp)
      stack = (Thread.current[:stake_stack] ||= [])
      path = project_path(tp.path)
      callee = path ? fn(path, tp.defined_class, tp.method_id, tp.lineno) : -1
      if callee >= 0
        @executed[callee][@current] = true if @current
        caller = stack.last
        @edges[[caller, callee]] = false if caller && caller >= 0 && caller != callee
      end
      stack << callee
    end

    # A block's frame: the method of its file and name defined last before the block's line (-1: not seen).
    def on_block(tp)
      stack = (Thread.current[:stake_stack] ||= [])
      path = project_path(tp.path)
      defs = path && tp.method_id ? @by_name.fetch([path, tp.method_id], nil) : nil
      best = defs&.select { |line, _| line <= tp.lineno }&.max_by(&:first)
      stack << (best ? best[1] : -1)
    end

    def on_return(_tp)
      Thread.current[:stake_stack]&.pop
    end

    def test_index(test)
      meth = test.method(test.method_name) rescue nil
      return nil unless meth&.source_location
      path = project_path(meth.source_location[0])
      return nil unless path
      f = fn(path, meth.owner, meth.name, meth.source_location[1])
      @functions[f][3] = true
      @test_by_fn.fetch(f) do
        @tests << [f, "#{test.class.name}##{test.method_name}"]
        @test_by_fn[f] = @tests.size - 1
      end
    end

    def run(test)
      @current = test_index(test)
      Thread.current[:stake_stack] = []
      trace = TracePoint.new(:call, :return, :b_call, :b_return) do |tp|
        case tp.event
        when :call then on_call(tp)
        when :b_call then on_block(tp)
        else on_return(tp)
        end
      end
      trace.enable
      yield
    ensure
      trace&.disable
      @current = nil
    end

    def write
      data = {
        root: ROOT, functions: @functions,
        edges: @edges.map { |(a, b), via| [a, b, via] },
        tests: @tests,
        executed: @executed.transform_keys(&:to_s).transform_values { |t| t.keys.sort },
      }
      File.write(OUT, JSON.generate(data))
    end
  end

  # test-unit: TestCase#run_test calls the test method between setup and teardown.
  module TestUnitHook
    def run_test
      StakeTrace.run(self) { super }
    end
  end

  # minitest: Test#run runs setup, the test and teardown; the test alone is traced via `name`.
  module MinitestHook
    def method_name = name

    def run
      StakeTrace.run(self) { super }
    end
  end
end

at_exit { StakeTrace.write }

begin
  require "test/unit"
  Test::Unit::TestCase.prepend(StakeTrace::TestUnitHook)
rescue LoadError
  require "minitest"
  Minitest::Test.prepend(StakeTrace::MinitestHook)
end
